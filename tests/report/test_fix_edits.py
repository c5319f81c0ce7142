"""A fix's edits, as JSON and SARIF give them, turn the file into what `--fix` writes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from import_policy.report.fix_edits import _text_changes
from import_policy.report.sarif import Replacement


def _apply(text: str, replacements: list[Replacement]) -> str:
    def offset(line: int, column: int) -> int:
        return sum(len(part) + 1 for part in text.split("\n")[: line - 1]) + column - 1

    for r in sorted(replacements, key=lambda r: (r.line, r.column), reverse=True):
        text = text[: offset(r.line, r.column)] + r.text + text[offset(r.end_line, r.end_column):]
    return text


LINES = st.lists(st.sampled_from(["import re\n", "x = 1\n", "\x0cy = 2\n", "z = 3\r\n", "w", "\n", "é\n"]), max_size=8)


@settings(max_examples=150, deadline=None)
@given(LINES, LINES, LINES, LINES)
def test_edits_applied_give_the_new_text(head: list[str], old: list[str], new: list[str], tail: list[str]) -> None:
    before = "".join(head + old + tail)
    after = "".join(head + new + tail)
    assert _apply(before, _text_changes(before.encode(), after.encode())) == after


def test_only_the_changed_lines_are_edited() -> None:
    before = "a = 1\n" * 50 + "import re\n" + "b = 2\n" * 50
    after = before.replace("import re\n", "import regex as re\n")
    assert _text_changes(before.encode(), after.encode()) == [Replacement(51, 1, 52, 1, "import regex as re\n")]
