"""One module per subcommand: the use cases the command line dispatches to.

A command returns its exit code, or raises `UsageError` for a bad request
(the command line prints it and exits 2).
"""

EXIT_OK, EXIT_VIOLATIONS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A request that cannot be carried out as given: exit 2 with this message."""


def discard_stdout() -> None:
    """The reader of stdout went away (`import-policy check | head`): send the rest nowhere, so
    neither a later write nor the interpreter's flush at exit fails (Python's documented recipe)."""
    import os
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing will flush it at exit
