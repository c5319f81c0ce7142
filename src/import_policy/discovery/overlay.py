"""Files whose bytes are not the ones on disk: an editor's buffers, path -> bytes.

`check --stdin-filename PATH` is one buffer; a language server holds one per open
document. Whatever reads a file for a run (the engine, the ROCm pass's graph, the
`import-time` rules, fixes) reads it through the overlay, so a buffer stands for its
own file wherever that file is read, and for no other.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from import_policy.discovery.files import SourceFile

Reader = Callable[[SourceFile], bytes]


def _key(path: Path | str) -> str:
    return os.path.normpath(os.path.abspath(path))


def _read_disk(file: SourceFile) -> bytes:
    return file.path.read_bytes()


class Overlay(Mapping[str, bytes]):
    """Absolute path (normalised, links kept: a link is a module at its own path) -> bytes."""

    def __init__(self, buffers: Mapping[Path | str, bytes] | None = None) -> None:
        self._buffers = {_key(path): data for path, data in (buffers or {}).items()}

    def __getitem__(self, path: str) -> bytes:
        return self._buffers[_key(path)]

    def __iter__(self) -> Iterator[str]:
        return iter(self._buffers)

    def __len__(self) -> int:
        return len(self._buffers)

    def bytes_of(self, path: Path | str) -> bytes | None:
        return self._buffers.get(_key(path))

    def reader(self, base: Reader = _read_disk) -> Reader:
        """`base` (the disk) with the buffers standing for their files."""
        if not self._buffers:
            return base
        buffers = self._buffers

        def read(file: SourceFile) -> bytes:
            held = buffers.get(_key(file.path))
            return held if held is not None else base(file)

        return read
