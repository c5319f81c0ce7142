"""A long cold run over dependencies shows progress on stderr only where it is a terminal."""

from __future__ import annotations

import io

from import_policy.graph.through import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_shown_on_a_terminal_after_a_while_and_wiped() -> None:
    stream = Terminal()
    progress = Progress(stream, after=0.0, every=0.0)
    for _ in range(3):
        progress.read("/site/a.py")
    progress.done()
    text = stream.getvalue()
    assert "\rimport-policy: reading dependencies: 3 files" in text and text.endswith("\r\033[K")


def test_nothing_on_a_pipe() -> None:
    stream = io.StringIO()
    progress = Progress(stream, after=0.0, every=0.0)
    progress.read("/site/a.py")
    progress.done()
    assert stream.getvalue() == ""


def test_nothing_for_a_short_run() -> None:
    stream = Terminal()
    progress = Progress(stream, after=60.0)
    progress.read("/site/a.py")
    progress.done()
    assert stream.getvalue() == ""
