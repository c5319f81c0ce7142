"""Cache entries as files: sealed with a MAC, read without following links, written whole.

An entry is a JSON object whose first member is `"mac"`: a keyed BLAKE2b of everything after
it, under the user's cache key (cache.key) and the cache's `purpose`, so an entry never
verifies for another cache or another user. The cache folder sits in the project tree, so
whatever is there may have come with the checkout: reading opens only regular files
(never a link, a FIFO or a device), and writing stays inside the project's own cache folder
(a folder in it that is a link makes the write a no-op).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
from pathlib import Path
from typing import Any

from import_policy.cache import FOLDER as FOLDER

_HEAD = b'{"mac":"'
_MAC_DIGITS = 64
_BODY = len(_HEAD) + _MAC_DIGITS + 2  # where the rest of the object starts, after `",`


def _mac(key: bytes, purpose: bytes, body: bytes) -> bytes:
    return hashlib.blake2b(body, key=key, digest_size=_MAC_DIGITS // 2, person=purpose).hexdigest().encode()


def seal(text: str, key: bytes, purpose: bytes) -> bytes:
    """`text`, a JSON object of at least one member, with its MAC as the first member."""
    assert text.startswith("{") and not text.startswith("{}"), "an entry is a non-empty JSON object"
    body = text[1:].encode("utf-8")
    return _HEAD + _mac(key, purpose, body) + b'",' + body


def unseal(data: bytes, key: bytes, purpose: bytes) -> bytes | None:
    """The entry's JSON text when its MAC verifies, else None."""
    if not data.startswith(_HEAD) or data[_BODY - 2 : _BODY] != b'",':
        return None
    if not hmac.compare_digest(data[len(_HEAD) : _BODY - 2], _mac(key, purpose, data[_BODY:])):
        return None
    return data


def read_entry(path: Path, key: bytes, purpose: bytes, entry_key: str) -> dict[str, Any] | None:
    """The JSON object of the entry at `path` when its MAC verifies and it was written for
    `entry_key`, else None. OSError when it cannot be read; ValueError when it is not JSON."""
    text = unseal(read_regular(path), key, purpose)
    if text is None:
        return None
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("key") != entry_key:
        return None
    return data


def read_regular(path: Path) -> bytes:
    """The bytes of `path` if it is a regular file and not a link; OSError otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    handle = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise OSError(f"{path}: not a regular file")
        chunks = []
        while chunk := os.read(handle, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(handle)


_prepared: set[Path] = set()  # cache folders this process made sure of
_confirmed: set[Path] = set()  # folders of entries found to be real folders inside their cache folder


def write_entry(folder: Path, entry: Path, data: bytes) -> None:
    """Write one entry of the cache folder `folder` (created with its `.gitignore` when
    missing) whole or not at all: a temporary file renamed into place, so concurrent runs
    only ever see complete entries. Best effort: a cache that cannot be written only costs
    speed."""
    import tempfile  # only a run with something to write pays for it

    try:
        if folder not in _prepared:
            folder.mkdir(exist_ok=True)
            if folder.is_symlink():
                return
            ignore = folder / ".gitignore"
            if not os.path.lexists(ignore):
                ignore.write_text("# created by import-policy\n*\n", encoding="utf-8")
            _prepared.add(folder)
        parent = entry.parent
        if parent not in _confirmed:
            parent.mkdir(parents=True, exist_ok=True)
            if os.path.realpath(parent) != os.path.join(os.path.realpath(folder), os.path.relpath(parent, folder)):
                return  # a link in the cache folder: never write through it
            _confirmed.add(parent)
        handle, temporary = tempfile.mkstemp(dir=parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, entry)
        except BaseException:
            _remove(temporary)
            raise
    except OSError:
        pass


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
