"""The secret that authenticates cache entries, kept where a checkout cannot reach it.

The caches live in the project tree, where a pull request can commit (or a copy can bring)
anything; an entry is honoured only if its MAC verifies under this key. The key is
`IMPORT_POLICY_CACHE_KEY` when set (a CI job that shares its cache on purpose), else the
file `import-policy/key` in the user's cache folder (`$XDG_CACHE_HOME`, else `~/.cache`),
made on first use: random bytes, mode 0600, linked into place whole so concurrent first
runs agree on one key. No key to be had (a read-only or missing home): None, and the run
goes without its caches.

The key file is read only if it is a small regular file, opened without following a link
(never a FIFO, which would block the run, nor a device such as /dev/zero); any other file
is replaced by a fresh key. A key folder inside the project root (`XDG_CACHE_HOME` pointed
into the checkout, as a CI cache action may have it) is neither read nor written: a pull
request could have committed the key there with entries sealed under it. The run then
uses a fresh key of its own, kept in memory only, so nothing the checkout holds verifies.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path

ENVIRONMENT = "IMPORT_POLICY_CACHE_KEY"
_SHORTEST = 32  # hex digits: a key file holding fewer was damaged, and is made again
_LARGEST = 4096  # bytes: a key file holding more is not one of ours, and is not read

_known: dict[tuple[str | None, str | None, str | None, str], bytes | None] = {}


class _Refused(OSError):
    """A key file that is not a small regular file: replaced, never read."""


def key_file() -> Path | None:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is ignored
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):
            return None
    return Path(base) / "import-policy" / "key"


def cache_key(root: Path) -> bytes | None:
    """The MAC key of this user's caches (32 bytes) for the project at `root`, or None when
    none can be had."""
    given = os.environ.get(ENVIRONMENT) or None
    real_root = os.path.realpath(root)
    where = (given, os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME"), real_root)
    if where not in _known:
        material = given.encode("utf-8", "surrogateescape") if given is not None else _stored(real_root)
        _known[where] = None if material is None else hashlib.blake2b(
            material, digest_size=32, person=b"import-policy"
        ).digest()
    return _known[where]


def _inside(path: str, real_root: str) -> bool:
    return path == real_root or path.startswith(real_root.rstrip(os.sep) + os.sep)


def _stored(real_root: str) -> bytes | None:
    path = key_file()
    if path is None:
        return None
    if _inside(os.path.realpath(path.parent), real_root):
        return _fresh()  # this run's own, kept nowhere
    try:
        current = read_key(path)
        if len(current) >= _SHORTEST:
            return current
    except (FileNotFoundError, _Refused):
        pass
    except OSError as error:
        if getattr(error, "errno", None) != errno.ELOOP:  # a link: refused as a FIFO is
            return None
    return _make(path)


def read_key(path: Path) -> bytes:
    """The key `path` holds: opened without following a link, without blocking, read only
    if it is a regular file of at most `_LARGEST` bytes (`_Refused` otherwise)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    handle = os.open(path, flags)
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode) or status.st_size > _LARGEST:
            raise _Refused(f"{path}: not a small regular file")
        return os.read(handle, _LARGEST + 1).strip()
    finally:
        os.close(handle)


def _make(path: Path) -> bytes | None:
    import tempfile

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".key-")  # mode 0600
    except OSError:
        return None
    fresh = _fresh()
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(fresh + b"\n")
        try:
            os.link(temporary, path)  # never replaces a key another run made meanwhile
        except FileExistsError:
            try:
                current = read_key(path)
            except _Refused:
                current = b""
            except OSError as error:
                if getattr(error, "errno", None) != errno.ELOOP:
                    raise
                current = b""
            if len(current) >= _SHORTEST:
                return current
            os.replace(temporary, path)  # a damaged key file (or a link, a FIFO): ours replaces it
        except OSError:
            os.replace(temporary, path)  # a file system without hard links
        return fresh
    except OSError:
        return None
    finally:
        try:
            os.unlink(temporary)
        except OSError:
            pass


def _fresh() -> bytes:
    import secrets  # only the first run, or one without a usable key file, makes a key

    return secrets.token_hex(32).encode()
