"""The secret that authenticates cache entries, kept where a checkout cannot reach it.

The caches live in the project tree, where a pull request can commit (or a copy can bring)
anything; an entry is honoured only if its MAC verifies under this key. The key is
`IMPORT_POLICY_CACHE_KEY` when set (a CI job that shares its cache on purpose), else the
file `import-policy/key` in the user's cache folder (`$XDG_CACHE_HOME`, else `~/.cache`),
made on first use: random bytes, mode 0600, linked into place whole so concurrent first
runs agree on one key. No key to be had (a read-only or missing home): None, and the run
goes without its caches.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

ENVIRONMENT = "IMPORT_POLICY_CACHE_KEY"
_SHORTEST = 32  # hex digits: a key file holding fewer was damaged, and is made again

_known: dict[tuple[str | None, str | None, str | None], bytes | None] = {}


def key_file() -> Path | None:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is ignored
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):
            return None
    return Path(base) / "import-policy" / "key"


def cache_key() -> bytes | None:
    """The MAC key of this user's caches (32 bytes), or None when none can be had."""
    given = os.environ.get(ENVIRONMENT) or None
    where = (given, os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME"))
    if where not in _known:
        material = given.encode("utf-8", "surrogateescape") if given is not None else _stored()
        _known[where] = None if material is None else hashlib.blake2b(
            material, digest_size=32, person=b"import-policy"
        ).digest()
    return _known[where]


def _stored() -> bytes | None:
    path = key_file()
    if path is None:
        return None
    try:
        current = path.read_bytes().strip()
        if len(current) >= _SHORTEST:
            return current
    except FileNotFoundError:
        pass
    except OSError:
        return None
    return _make(path)


def _make(path: Path) -> bytes | None:
    import tempfile

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".key-")  # mode 0600
    except OSError:
        return None
    fresh = secrets.token_hex(32).encode()
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(fresh + b"\n")
        try:
            os.link(temporary, path)  # never replaces a key another run made meanwhile
        except FileExistsError:
            current = path.read_bytes().strip()
            if len(current) >= _SHORTEST:
                return current
            os.replace(temporary, path)  # a damaged key file: ours replaces it
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
