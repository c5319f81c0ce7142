"""The client's stream as pygls reads it, with a bound on one message: a frame whose
`Content-Length` is over `LIMIT` is never read into memory (pygls would allocate the whole
claimed length at once, and 99999999999 bytes is a MemoryError that ends the server).

Such a frame stands for `OVERSIZED` (a marker the protocol answers with an error); its
bytes are skipped as they come, and the stream is read again from the next frame's
`Content-Length` header, wherever in a line it starts.
"""

from __future__ import annotations

import json
from typing import BinaryIO

LIMIT = 256 * 1024 * 1024  # bytes of one message: a didOpen of a 100 MB file is about half
OVERSIZED = "import-policy/oversized"  # the key of the marker that stands for a refused frame
_CHUNK = 1 << 20
_HEADER = b"Content-Length:"


class BoundedReader:
    """`readline` and `read` over the client's stream, as pygls's reader calls them."""

    def __init__(self, stream: BinaryIO, limit: int = LIMIT) -> None:
        self.stream = stream
        self.limit = limit
        self._skipping = False  # after a refused frame: until the next header
        self._pending = b""  # a header found inside a skipped line: the next line read

    def readline(self) -> bytes:
        if self._pending:
            line, self._pending = self._pending, b""
            return line
        line = self.stream.readline(self.limit)
        if self._skipping and line:
            at = line.find(_HEADER)
            if at < 0:
                return b"\r\n"  # neither a header nor a frame's end: pygls reads on
            self._skipping = False
            if at > 0:
                self._pending = line[at:]
                return b"\r\n"
        return line

    def read(self, count: int) -> bytes:
        """The body of a frame of `count` bytes; over the limit, the marker instead (its
        bytes, as many as come, are skipped from the next read on)."""
        if count > self.limit:
            self._skipping = True
            return json.dumps({OVERSIZED: count, "limit": self.limit}).encode()
        parts = []
        left = count
        while left > 0:
            chunk = self.stream.read(min(left, _CHUNK))
            if not chunk:
                break
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)
