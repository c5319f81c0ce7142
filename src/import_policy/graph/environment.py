"""Which Python environment the project's dependencies are read from, found as ty and pyright
find theirs, and where its `site-packages` folders are, from the folder layout alone.

Nothing is run or imported: an interpreter's path names its environment's folder (`bin/python`
or `Scripts/python.exe` under a venv, `python.exe` at a Windows prefix), `pyvenv.cfg` marks a
venv, and its packages are under `lib/pythonX.Y/site-packages` (`lib64` too) or
`Lib/site-packages`. The order: `environment.python`, else `$VIRTUAL_ENV`, else `.venv` under
the project root, else none. A pre-commit hook runs in a venv of its own under pre-commit's
cache, which holds the hook's dependencies, not the project's: that `$VIRTUAL_ENV` is passed over.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

_LIB_PYTHON = re.compile(r"python3\.\d+t?")


@dataclass(frozen=True)
class Environment:
    prefix: str  # the environment's folder
    site_packages: tuple[str, ...]  # where its distributions are installed, in search order
    how: str  # which setting named it: `environment.python`, `$VIRTUAL_ENV` or `.venv`


def find(root: Path, python: str | None, environ: Mapping[str, str]) -> Environment | None:
    """The project's environment; None when there is none (or the named one has no site-packages)."""
    if python is not None:
        return _at(_prefix_of(python), "environment.python")
    virtual = environ.get("VIRTUAL_ENV")
    if virtual and not _pre_commit_own(virtual, environ):
        found = _at(virtual, "$VIRTUAL_ENV")
        if found is not None:
            return found
    local = root / ".venv"
    return _at(str(local), ".venv") if local.is_dir() else None


def project_environment(root: Path, python: str | None) -> Environment | None:
    """`find` with this process's environment variables."""
    names = ("VIRTUAL_ENV", "PRE_COMMIT_HOME", "XDG_CACHE_HOME")
    return find(root, python, {name: os.environ[name] for name in names if name in os.environ})


def _prefix_of(python: str) -> str:
    """The environment folder an interpreter's path names (the path itself when it is a folder).
    The path is not resolved: a venv's `bin/python` is a link to the base interpreter."""
    if os.path.isdir(python):
        return python
    folder = os.path.dirname(python)
    if os.path.basename(folder).lower() in ("bin", "scripts"):
        return os.path.dirname(folder)
    return folder  # a Windows prefix holds python.exe itself


def _pre_commit_own(virtual: str, environ: Mapping[str, str]) -> bool:
    """Whether `$VIRTUAL_ENV` is a venv pre-commit made for a hook (under its cache folder)."""
    homes = [environ.get("PRE_COMMIT_HOME", "")]
    cache = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    homes.append(os.path.join(cache, "pre-commit"))
    real = os.path.realpath(virtual)
    return any(home and (real + os.sep).startswith(os.path.realpath(home) + os.sep) for home in homes)


def _at(prefix: str, how: str) -> Environment | None:
    found = site_packages(prefix)
    return Environment(os.path.abspath(prefix), found, how) if found else None


def site_packages(prefix: str) -> tuple[str, ...]:
    """The environment's `site-packages` folders: its `pyvenv.cfg`'s Python version first when
    it states one (a venv upgraded in place may keep the old folder), else every one there."""
    version = _venv_version(prefix)
    found: list[str] = []
    for lib in ("lib", "lib64"):
        folder = os.path.join(prefix, lib)
        try:
            names = sorted(os.listdir(folder), reverse=True)
        except OSError:
            continue
        for name in names:
            if _LIB_PYTHON.fullmatch(name) and (version is None or name.rstrip("t") == f"python{version}"):
                candidate = os.path.join(folder, name, "site-packages")
                if os.path.isdir(candidate) and os.path.realpath(candidate) not in map(os.path.realpath, found):
                    found.append(os.path.abspath(candidate))
    windows = os.path.join(prefix, "Lib", "site-packages")
    if not found and os.path.isdir(windows):
        found.append(os.path.abspath(windows))
    return tuple(found)


def _venv_version(prefix: str) -> str | None:
    """`3.11` from a `pyvenv.cfg` (`version_info = 3.11.7...` or `version = 3.11.7`), if any."""
    try:
        with open(os.path.join(prefix, "pyvenv.cfg"), encoding="utf-8", errors="replace") as handle:
            text = handle.read(65536)
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() in ("version_info", "version"):
            found = re.match(r"\s*(3\.\d+)", value)
            if found is not None:
                return found.group(1)
    return None


__all__ = ["Environment", "find", "project_environment", "site_packages"]
