"""The compiled methods of the package's dataclasses, kept between runs as `.pyc` files keep
a module's code.

Creating a dataclass compiles the source of each method it writes (`__init__`, `__repr__`,
`__eq__`, `__hash__`, and `__setattr__`/`__delattr__` when frozen) with one `exec` of a
text each, on every start: on CPython 3.11 about 0.5 M instructions a method, most of what a
warm pre-commit batch spends before it reads a file (about a hundred records). The text
dataclasses writes is a pure function of the class's fields and options, and compiling the
same text gives the same code, so the code compiled for a text is kept (marshal, as a `.pyc`
keeps it) and the next run executes it without compiling: the functions made, and the
classes, are those dataclasses would make.

`install` shadows `exec` in the `dataclasses` module's namespace, the one name its method
factory calls; nothing else changes (a text never seen, or any other call, is compiled as
`exec` would). The command line installs it for its own process only; `save` writes what
was compiled this run next to the package's bytecode, where Python writes its `.pyc`
files (not when PYTHONDONTWRITEBYTECODE is set, as for those). A file that cannot be read,
of another interpreter's bytecode, or not written by this module, is ignored.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys
from types import CodeType
from typing import Any

# The header: this module's format, then the interpreter's bytecode magic (as a `.pyc`
# starts with it): code of another release is never executed.
_FORMAT = b"import-policy dataclass code 1\n"
_LIMIT = 4_000  # texts kept in the file: beyond, only the last run's (an editable install's old classes)

_known: dict[str, CodeType] = {}
_compiled: dict[str, CodeType] = {}  # compiled this run, not in the file
_used: set[str] = set()
_installed = False


def _path() -> str:
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
    return os.path.join(folder, f"dataclass-code.{sys.implementation.cache_tag}.opt{sys.flags.optimize}.marshal")


def _magic() -> bytes:
    from importlib.util import MAGIC_NUMBER

    return MAGIC_NUMBER


def _load() -> dict[str, CodeType]:
    try:
        with open(_path(), "rb") as file:
            data = file.read()
    except OSError:
        return {}
    head = _FORMAT + _magic()
    if not data.startswith(head):
        return {}
    try:
        table = marshal.loads(data[len(head):])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {text: code for text, code in table.items() if isinstance(text, str) and isinstance(code, CodeType)}


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """`exec` as dataclasses calls it, its text compiled once across runs."""
    if isinstance(source, str):
        code = _known.get(source)
        if code is None:
            # As exec compiles a text: file name "<string>", and no future flags, since the
            # dataclasses module (whose frame exec would inherit them from) imports none.
            code = compile(source, "<string>", "exec", dont_inherit=True)
            _known[source] = code
            _compiled[source] = code
        _used.add(source)
        source = code
    builtins.exec(source, globals, locals)


def install() -> None:
    """Serve the methods of every dataclass created from now on in this process from the kept
    code; idempotent."""
    global _installed
    if _installed or sys.implementation.name != "cpython":
        return
    import dataclasses

    _known.update(_load())
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    _installed = True


def save() -> None:
    """Write the code compiled this run (with what the file held), unless nothing was new or
    bytecode is not to be written; a failure to write costs the next run its compiles only."""
    if not _compiled or sys.dont_write_bytecode:
        return
    table = _known if len(_known) <= _LIMIT else {text: _known[text] for text in _used}
    path = _path()
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as file:
            file.write(_FORMAT + _magic() + marshal.dumps(table))
        os.replace(temporary, path)
    except (OSError, ValueError):
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return
    _compiled.clear()
