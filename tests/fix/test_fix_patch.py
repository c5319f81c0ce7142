"""`--diff` is built from the fixer's own edits, a hunk per change region: never a sequence
match of the whole file (quadratic on many similar lines), and still what `git apply` and
`patch -p1` take (tests/fix/test_fix_side_effects.py applies it for every line ending)."""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import Project
from import_policy.fix.patch import edits_between, unified_diff

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git_apply(folder: Path, name: str, old: bytes, patch: bytes) -> bytes:
    """What `git apply` makes of `old` (the file `name`) with `patch`."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(old)
    subprocess.run(["git", "init", "-q", "."], cwd=folder, check=True)
    done = subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], cwd=folder, input=patch, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    return (folder / name).read_bytes()


def _refuse(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("--diff compared the whole file")


@needs_git
def test_diff_never_matches_the_whole_file(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.config("rules:\n  - id: no-re\n    forbid: [re]\n    fix: {replace_module: regex}\n")
    source = "import re\n" + "x = 1\n" * 40 + "from re import sub\n" + "y = 2\n" * 40
    project.write("m.py", source)
    monkeypatch.setattr(difflib, "SequenceMatcher", _refuse)
    code, out, _ = project.run("check", "--no-cache", "--diff")
    assert code == 1
    assert out.count("\n@@ ") == 2  # one hunk per change, 40 lines apart
    assert git_apply(project.root / "applied", "m.py", source.encode(), out.encode()).decode() == (
        "import regex as re\n" + "x = 1\n" * 40 + "from regex import sub\n" + "y = 2\n" * 40
    )


@needs_git
def test_a_whole_file_fix_gets_a_hunk_per_change(project: Project) -> None:
    # Two imports from one gateway: the fixer takes the whole file (it folds the second
    # into the first), and says which lines it rewrote.
    project.config(
        "rules:\n  - id: gw\n    forbid: [triton]\n    fix:\n      gateway: pk.gw\n"
        "      exports: {triton: triton, triton.language: tl}\n"
    )
    project.write("pk/__init__.py", "")
    project.write("pk/gw.py", "triton = tl = None\n")
    source = "import triton\n" + "x = 1\n" * 30 + "import triton.language as tl\n" + "y = 2\n" * 30
    project.write("pk/m.py", source)
    code, out, _ = project.run("check", "--no-cache", "--diff")
    assert code == 1 and out.count("\n@@ ") == 2
    assert git_apply(project.root / "applied", "pk/m.py", source.encode(), out.encode()).decode() == (
        "from pk.gw import triton, tl\n" + "x = 1\n" * 30 + "y = 2\n" * 30
    )


LINES = st.sampled_from([b"import re\n", b"x = 1\n", b"\n", b"import re\r\n", b"  y\r", b"z"])


@st.composite
def files_and_edits(draw: st.DrawFn) -> tuple[bytes, list[tuple[int, int, bytes]]]:
    old = b"".join(draw(st.lists(LINES, max_size=30)))
    cuts = sorted(draw(st.lists(st.integers(0, len(old)), max_size=8)))
    edits = []
    for start, end in zip(cuts[::2], cuts[1::2]):
        edits.append((start, end, b"".join(draw(st.lists(LINES, max_size=3)))))
    return old, edits


@needs_git
@settings(max_examples=25)
@given(files_and_edits())
# An edit at the end of an unended last line, after one that removed that line: one change.
@example(case=(b"z", [(0, 1, b""), (1, 1, b"import re\n")]))
# An insertion at the end of the file after an edit that removed its last `\n`: one change (here a no-op).
@example(case=(b"x = 1\n", [(0, 0, b""), (5, 6, b""), (6, 6, b"\n")]))
def test_any_edits_make_a_diff_git_applies(tmp_path_factory: pytest.TempPathFactory, case: tuple[bytes, list[tuple[int, int, bytes]]]) -> None:
    old, edits = case
    new = bytearray(old)
    for start, end, text in reversed(edits):
        new[start:end] = text
    patch = unified_diff("f.py", old, edits)
    if bytes(new) == old:
        assert patch == b""
        return
    assert git_apply(tmp_path_factory.mktemp("apply"), "f.py", old, patch) == bytes(new)


@settings(max_examples=200)
@given(files_and_edits(), st.booleans())
def test_edits_between_rebuild_the_new_bytes(case: tuple[bytes, list[tuple[int, int, bytes]]], hinted: bool) -> None:
    old, edits = case
    new = bytearray(old)
    for start, end, text in reversed(edits):
        new[start:end] = text
    found = edits_between(old, bytes(new), [(s, e) for s, e, _ in edits] if hinted else None)
    rebuilt = bytearray(old)
    for start, end, text in reversed(found):
        rebuilt[start:end] = text
    assert bytes(rebuilt) == bytes(new)


@needs_git
@pytest.mark.parametrize(
    ("old", "edits"),
    [
        (b"a\nb\nc\n", [(0, 2, b"x")]),  # the new text joins the next line
        (b"a\nb\nc\n", [(0, 2, b"x"), (2, 4, b"y\n")]),
        (b"a\n\nb\n\nc\n", [(0, 2, b"a\n\nb2\n\nc2")]),  # blank lines inside the new text
        (b"a\nb", [(2, 3, b"c")]),  # the last line without its newline
        (b"a\r\nb\r\n", [(0, 3, b"x\r\ny\r\n")]),
        (b"a\rb\rc\r", [(2, 4, b"x\r")]),  # CR-only: one line to the patch tools
        (b"", [(0, 0, b"new\n")]),
    ],
)
def test_edits_that_do_not_end_a_line(tmp_path: Path, old: bytes, edits: list[tuple[int, int, bytes]]) -> None:
    new = bytearray(old)
    for start, end, text in reversed(edits):
        new[start:end] = text
    assert git_apply(tmp_path / "apply", "f.py", old, unified_diff("f.py", old, edits)) == bytes(new)
