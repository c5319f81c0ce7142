"""A small Language Server Protocol client over stdio, for the tests and bench/: it runs
`import-policy server` in a subprocess and speaks JSON-RPC to it as an editor does (each
message framed by its Content-Length header), answering the server's own requests
(`client/registerCapability`) the way an editor that accepts them does."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

Message = dict[str, Any]


def uri(path: Path) -> str:
    return "file://" + quote(os.path.realpath(path), safe="/:")


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Client:
    def __init__(self, cwd: Path, command: Sequence[str] | None = None, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            list(command or [sys.executable, "-m", "import_policy", "server"]), cwd=cwd,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )
        self._next = 0
        self.inbox: queue.Queue[Message | None] = queue.Queue()
        self.notifications: list[Message] = []  # every notification received, in order
        self.requests: list[Message] = []  # requests the server made of the client
        self._responses: dict[int | None, Message] = {}
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr = b""
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    # --- wire --------------------------------------------------------------------------

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            assert length is not None
            self.inbox.put(json.loads(out.read(length)))

    def _drain_stderr(self) -> None:
        err = self.process.stderr
        assert err is not None
        for chunk in iter(lambda: err.read(4096), b""):
            self.stderr += chunk

    def send_raw(self, data: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(data)
        stdin.flush()

    def send(self, message: Message) -> None:
        self.send_raw(frame(json.dumps({"jsonrpc": "2.0", **message}).encode()))

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any, timeout: float = 120) -> Message:
        """Send a request and wait for its response (the whole response message)."""
        self._next += 1
        ident = self._next
        self.send({"id": ident, "method": method, "params": params})
        return self.response(ident, timeout)

    def response(self, ident: int | None, timeout: float = 120) -> Message:
        """The response to request `ident` (None: an error about a message whose id was never read)."""
        deadline = time.monotonic() + timeout
        while ident not in self._responses:
            self._pump(deadline)
        return self._responses.pop(ident)

    def _pump(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no answer from the server; its stderr: {self.stderr.decode(errors='replace')[-2000:]}")
        try:
            message = self.inbox.get(timeout=left)
        except queue.Empty:
            return
        if message is None:
            raise EOFError(f"the server closed its output; its stderr: {self.stderr.decode(errors='replace')[-2000:]}")
        if "method" in message and "id" in message:  # the server asks something of the client
            self.requests.append(message)
            self.send({"id": message["id"], "result": None})
        elif "method" in message:
            self.notifications.append(message)
        else:
            self._responses[message["id"]] = message

    def wait_for(self, test: Callable[[Message], bool], timeout: float = 120, since: int = 0) -> Message:
        """The first notification from index `since` on that passes `test`, waiting for it."""
        deadline = time.monotonic() + timeout
        seen = since
        while True:
            for message in self.notifications[seen:]:
                if test(message):
                    return message
            seen = max(seen, len(self.notifications))
            self._pump(deadline)

    def diagnostics(self, path: Path, since: int = 0, version: int | None = None, timeout: float = 120) -> list[Message]:
        """The next diagnostics published for `path` (from notification `since` on; of `version` when given)."""
        target = uri(path)

        def test(message: Message) -> bool:
            params = message.get("params", {})
            return (
                message["method"] == "textDocument/publishDiagnostics" and params.get("uri") == target
                and (version is None or params.get("version") == version)
            )

        found: list[Message] = self.wait_for(test, timeout, since)["params"]["diagnostics"]
        return found

    # --- the protocol's steps ------------------------------------------------------------

    def initialize(self, root: Path, watched: bool = True, encodings: Sequence[str] | None = None) -> Message:
        capabilities: Message = {
            "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": watched}},
            "textDocument": {"publishDiagnostics": {"versionSupport": True}},
        }
        if encodings is not None:  # the position encodings the client offers, preferred first
            capabilities["general"] = {"positionEncodings": list(encodings)}
        answer = self.request("initialize", {"processId": os.getpid(), "rootUri": uri(root), "capabilities": capabilities})
        self.notify("initialized", {})
        return answer

    def open(self, path: Path, text: str | None = None, version: int = 1) -> None:
        content = path.read_text(encoding="utf-8") if text is None else text
        self.notify("textDocument/didOpen", {
            "textDocument": {"uri": uri(path), "languageId": "python", "version": version, "text": content},
        })

    def change(self, path: Path, text: str, version: int) -> None:
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri(path), "version": version}, "contentChanges": [{"text": text}],
        })

    def save(self, path: Path) -> None:
        self.notify("textDocument/didSave", {"textDocument": {"uri": uri(path)}})

    def shutdown(self, timeout: float = 60) -> int:
        """shutdown, then exit: the server's exit code."""
        self.request("shutdown", None)
        self.notify("exit", None)
        return self.process.wait(timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
