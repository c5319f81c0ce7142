"""A cache write that fails leaves nothing behind: the entry is written whole or not at all,
and its temporary file is removed (a cache folder never fills with `.tmp-*.json`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from import_policy.cache import seal


def _left(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_a_failed_rename_removes_the_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / seal.FOLDER
    entry = folder / "facts" / "ab.json"

    def refuse(source: str, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    seal.write_entry(folder, entry, b'{"mac":"x"}')  # best effort: no exception
    assert _left(folder) == [".gitignore"]


def test_a_failed_write_removes_the_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / seal.FOLDER
    entry = folder / "facts" / "cd.json"
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, handle: int) -> None:
            self.file = real_fdopen(handle, "wb")

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.file.close()

        def write(self, data: bytes) -> int:
            self.file.write(data[:3])
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fdopen", lambda handle, mode: Full(handle))
    seal.write_entry(folder, entry, b'{"mac":"x"}')
    assert _left(folder) == [".gitignore"]
    monkeypatch.undo()
    seal.write_entry(folder, entry, b'{"mac":"y"}')  # and a later write still lands whole
    assert _left(folder) == [".gitignore", "facts/cd.json"]
    assert entry.read_bytes() == b'{"mac":"y"}'
