"""The open buffers: each stands for its file, in every rule and in the ROCm pass's graph,
as `check --stdin-filename` has stdin stand for one file."""

from __future__ import annotations

import io
import os
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pygls import uris

from import_policy.discovery.files import SourceFile, language_of


def path_of(uri: str) -> Path | None:
    """The file a `file:` URI names; None for any other scheme (an untitled buffer)."""
    named = uris.to_fs_path(uri)
    if named is None:
        return None
    # The folder's real path, as the policy's root is (a workspace opened through a link
    # still matches), but the file's own name: a link to a module is a module at the link's
    # path, which `check` reports there, not at the file it leads to.
    path = os.path.abspath(named)
    return Path(os.path.realpath(os.path.dirname(path))) / os.path.basename(path)


def uri_of(path: Path) -> str:
    named: str | None = uris.from_fs_path(str(path))
    assert named is not None  # a path always has its URI
    return named


@dataclass
class Buffer:
    uri: str
    path: Path
    text: str
    version: int | None

    @property
    def encoding(self) -> str:
        """How the file's bytes spell its text: its PEP 263 cookie's encoding when it names one
        that can spell the text (the editor decoded it so), else UTF-8."""
        raw = self.text.encode("utf-8", "surrogatepass")
        if language_of(self.path.name) != "python":
            return "utf-8"
        try:
            declared, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        except SyntaxError:
            return "utf-8"
        if declared in ("utf-8", "utf-8-sig"):
            return "utf-8"
        try:
            self.text.encode(declared)
        except (UnicodeError, LookupError):
            return "utf-8"
        return declared

    @property
    def data(self) -> bytes:
        """The buffer as the file's bytes: the protocol's text is Unicode, which the editor
        decoded from the file; columns are counted on the text Python decodes from these."""
        encoding = self.encoding
        return self.text.encode(encoding, "surrogatepass" if encoding == "utf-8" else "strict")


class Documents:
    """The open buffers by path, and the reader that prefers them to the disk."""

    def __init__(self) -> None:
        self._by_path: dict[Path, Buffer] = {}

    def open(self, uri: str, text: str, version: int | None) -> Buffer | None:
        path = path_of(uri)
        if path is None:
            return None
        buffer = Buffer(uri, path, text, version)
        self._by_path[path] = buffer
        return buffer

    def close(self, uri: str) -> Buffer | None:
        path = path_of(uri)
        return self._by_path.pop(path, None) if path is not None else None

    def get(self, uri: str) -> Buffer | None:
        path = path_of(uri)
        return self._by_path.get(path) if path is not None else None

    def at(self, path: Path) -> Buffer | None:
        return self._by_path.get(path)

    def __iter__(self) -> Iterator[Buffer]:
        return iter(list(self._by_path.values()))

    def read(self, file: SourceFile) -> bytes:
        """A file's bytes as the editor has them: its buffer when open, else the disk."""
        buffer = self._by_path.get(Path(os.path.abspath(file.path)))
        if buffer is not None:
            return buffer.data
        return file.path.read_bytes()
