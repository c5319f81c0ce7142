"""Questions about a path the tool built itself (a module name turned into a file name, a
configuration path): any OS error (a name longer than the file system allows, a component
that is a file, a folder it may not search) means "not there", as it does for Python's
own import system, never an internal error. pathlib's own `is_file` lets ENAMETOOLONG
and EACCES escape."""

from __future__ import annotations

import os
import stat


def is_file(path: str | os.PathLike[str]) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):  # ValueError: a NUL in the name
        return False


def is_dir(path: str | os.PathLike[str]) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def exists(path: str | os.PathLike[str]) -> bool:
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def is_symlink(path: str | os.PathLike[str]) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False
