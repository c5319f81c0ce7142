"""Which Python environment the project's dependencies are read from, found as ty and pyright
find theirs, and where its `site-packages` folders are, from the folder layout alone.

Nothing is run or imported: an interpreter's path names its environment's folder (`bin/python`
or `Scripts/python.exe` under a venv, `python.exe` at a Windows prefix), `pyvenv.cfg` marks a
venv, and its packages are under `lib/pythonX.Y/site-packages` (`lib64` too; `pythonX.Yt` for a
free-threaded build) or `Lib/site-packages`. The order: `environment.python`, else `.venv` under
the project root, else `$VIRTUAL_ENV`, else none. A pre-commit hook runs in a venv of its own
(under pre-commit's cache, or `try-repo`'s temporary store), which holds the hook's dependencies,
not the project's, and a tools venv that holds import-policy is not the project's either: such a
`$VIRTUAL_ENV` is passed over.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

_LIB_PYTHON = re.compile(r"python3\.\d+t?")


@dataclass(frozen=True)
class Environment:
    prefix: str  # the environment's folder
    site_packages: tuple[str, ...]  # where its distributions are installed, in search order
    how: str  # which setting named it: `environment.python`, `$VIRTUAL_ENV` or `.venv`


def find(root: Path, python: str | None, environ: Mapping[str, str], own: str | None = None) -> Environment | None:
    """The project's environment; None when there is none (or the named one has no site-packages).
    `own`: the prefix of the environment import-policy runs in (never the project's)."""
    if python is not None:
        return _at(_prefix_of(python), "environment.python")
    local = root / ".venv"
    if local.is_dir():
        found = _at(str(local), ".venv")
        if found is not None:
            return found
    virtual = environ.get("VIRTUAL_ENV")
    if virtual and passed_over(virtual, environ, own) is None:
        return _at(virtual, "$VIRTUAL_ENV")
    return None


def passed_over(virtual: str, environ: Mapping[str, str], own: str | None) -> str | None:
    """Why `$VIRTUAL_ENV` is not the project's environment, if it is not."""
    if _pre_commit_own(virtual, environ):
        return "pre-commit's own hook environment"
    if own is not None and os.path.realpath(own) == os.path.realpath(virtual):
        return "the environment import-policy runs in"
    return None


def project_environment(root: Path, python: str | None) -> Environment | None:
    """`find` with this process's environment variables."""
    return find(root, python, environment_variables(), sys.prefix)


def environment_variables() -> dict[str, str]:
    names = ("VIRTUAL_ENV", "PRE_COMMIT_HOME", "XDG_CACHE_HOME")
    return {name: os.environ[name] for name in names if name in os.environ}


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
    """Whether `$VIRTUAL_ENV` is a venv pre-commit made for a hook: under its cache folder
    (`PRE_COMMIT_HOME`, else `~/.cache/pre-commit`), or laid out as pre-commit lays any store,
    a temporary one of `try-repo` included (`STORE/repoXXXX/py_env-VERSION`, the store holding
    its `db.db`)."""
    homes = [environ.get("PRE_COMMIT_HOME", "")]
    cache = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    homes.append(os.path.join(cache, "pre-commit"))
    real = os.path.realpath(virtual)
    if any(home and (real + os.sep).startswith(os.path.realpath(home) + os.sep) for home in homes):
        return True
    store = os.path.dirname(os.path.dirname(real))
    return os.path.basename(real).startswith("py_env-") and os.path.isfile(os.path.join(store, "db.db"))


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


__all__ = ["Environment", "environment_variables", "find", "passed_over", "project_environment", "site_packages"]
