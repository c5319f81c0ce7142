"""One module per subcommand: the use cases the command line dispatches to.

A command returns its exit code, or raises `UsageError` for a bad request
(the command line prints it and exits 2).
"""

EXIT_OK, EXIT_VIOLATIONS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A request that cannot be carried out as given: exit 2 with this message."""
