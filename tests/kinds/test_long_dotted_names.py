"""Dotted names of any length cost linear time and bounded memory: a pull request can write
`import torch.a.a.a...` 128 KB long. The verdict stays the one the rule states (the longest
prefix a pattern matches decides, an `except` wins a tie), held here against the plain
reading: every prefix, each against each pattern's whole-name regex."""

from __future__ import annotations

import tracemalloc

import pytest

from hypothesis import given, strategies as st

from conftest import Project
from import_policy.patterns import DottedPattern, Verdict, judge, module_heads


def _by_every_prefix(name: str, forbid: list[DottedPattern], allow: list[DottedPattern]) -> Verdict:
    pieces = name.split(".")
    for size in range(len(pieces), 0, -1):
        prefix = ".".join(pieces[:size])
        for pattern in allow:
            if pattern.matches(prefix):
                return Verdict(False, pattern)
        for pattern in forbid:
            if pattern.matches(prefix):
                return Verdict(True, pattern)
    return Verdict(False, None)


_SEGMENTS = st.sampled_from(["a", "b", "ab", "ba", "x_y"])
_PATTERN_SEGMENTS = st.sampled_from(["a", "b", "ab", "*", "a*", "*b", "**"])
_NAMES = st.lists(_SEGMENTS, min_size=1, max_size=7).map(".".join)
_PATTERNS = st.lists(_PATTERN_SEGMENTS, min_size=1, max_size=5).map(".".join).map(DottedPattern.compile)


@given(_NAMES, st.lists(_PATTERNS, max_size=3), st.lists(_PATTERNS, max_size=3))
def test_judge_is_the_longest_prefix_rule(name: str, forbid: list[DottedPattern], allow: list[DottedPattern]) -> None:
    assert judge(name, forbid, allow) == _by_every_prefix(name, forbid, allow)


def test_a_long_name_is_judged_in_bounded_memory() -> None:
    name = "torch" + ".a" * 8000  # 16 KB: every prefix at once would be 64 MB
    patterns = [DottedPattern.compile(text) for text in ("torch", "torch.**.b", "**.a.b", "torch.a.*.*")]
    tracemalloc.start()
    try:
        verdict = judge(name, patterns, [DottedPattern.compile("torch.a.**.c")])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert verdict == Verdict(True, patterns[3])
    assert peak < 50 * len(name), peak


def test_module_heads_stop_where_no_file_could_be() -> None:
    assert list(module_heads("a.b.c")) == ["a", "a.b", "a.b.c"]
    assert list(module_heads("a." + "b" * 256 + ".c")) == ["a"]
    assert sum(len(head) for head in module_heads("a" + ".a" * 60000)) < 5_000_000


@pytest.mark.parametrize("segments", [8000, pytest.param(65000, marks=pytest.mark.slow)])
def test_a_long_import_line_is_one_finding(project: Project, segments: int) -> None:
    # 65000 segments is the 128 KB line; CPython's own parser is what takes most of its time.
    project.config("version: 1\nextends: [rocm-safety]\nrules:\n  - id: no-torch\n    forbid: [torch]\n")
    project.write("pkg/__init__.py", "import torch" + ".a" * segments + "  # cuda\n")
    code, out, err = project.run("check", "--no-cache")
    assert code == 1 and "internal error" not in err, err
    assert out.splitlines()[0].startswith("pkg/__init__.py:1:8: no-torch `torch")
    assert out.splitlines()[-1] == "Found 1 violation (0 fixable with --fix)."


def test_cpython_parses_a_long_import_in_bounded_memory() -> None:
    # CPython's parser keeps every partial name of an import's dotted name (quadratic): the
    # name is cut to the segments a module path could hold before it reads the file.
    from import_policy.facts.source.longnames import LIMIT
    from import_policy.facts.source.syntax import cpython_read

    import ast

    source = ("import torch" + ".a" * 16000 + " as t, os\n").encode()
    tree, parsed = cpython_read(source, "m.py")
    assert parsed is not None and len(parsed.source) == len(source)  # what CPython read, positions kept
    tracemalloc.start()
    try:
        compile(parsed.source, "m.py", "exec", ast.PyCF_ONLY_AST)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert isinstance(tree, ast.Module)
    [statement] = tree.body
    assert isinstance(statement, ast.Import)
    assert [alias.name for alias in statement.names] == ["torch" + ".a" * (LIMIT - 1), "os"]
    assert [alias.asname for alias in statement.names] == ["t", None]
    assert (statement.names[1].lineno, statement.names[1].col_offset) == (1, source.index(b", os") + 2)
    assert peak < 40_000_000, peak  # every partial name of 16000 segments: about 300 MB


@pytest.mark.parametrize("text", [
    "from torch{tail} import x\nimport pickle\n",
    "import os, \\\n  torch{tail}\nimport pickle\n",
    "import torch{tail} as t; import pickle\n",
])
def test_a_cut_name_keeps_every_other_position(project: Project, text: str) -> None:
    project.config("version: 1\nrules:\n  - id: no-torch\n    forbid: [torch, pickle]\n")
    source = text.format(tail=".a" * 3000)
    project.write("m.py", source)
    code, out, err = project.run("check", "--no-cache")
    assert code == 1 and err == "", err
    found = [line.split(" ")[0] for line in out.splitlines()[:-1]]
    line_of_pickle = source[: source.index("pickle")].count("\n") + 1
    column_of_pickle = source.index("pickle") - source.rfind("\n", 0, source.index("pickle"))
    assert found[-1] == f"m.py:{line_of_pickle}:{column_of_pickle}:"
    assert len(found) == 2


def test_two_double_stars_in_a_row_are_one() -> None:
    # A `**` segment matches zero or more segments, so two in a row do too (the regex of
    # `**.**.x` once required a dot before `x`).
    assert DottedPattern.compile("**.**.x").matches("x")
    assert DottedPattern.compile("**.**").matches("a.b")
    assert judge("x.y", [DottedPattern.compile("**.**.x")], []).forbidden


def test_a_name_one_segment_past_the_limit_is_cut_and_a_file_with_fewer_dots_is_not_searched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from import_policy.facts.source import longnames

    over = ("import torch" + ".a" * longnames.LIMIT + "\n").encode()  # LIMIT + 1 segments: LIMIT dots
    assert over.count(b".") == longnames.LIMIT
    cut = longnames.shorten_names(over)
    assert cut is not None and len(cut) == len(over) and cut.rstrip().endswith(b".a")
    at_limit = ("import torch" + ".a" * (longnames.LIMIT - 1) + "\n").encode()
    assert longnames.shorten_names(at_limit) is None

    searched: list[bytes] = []
    real = longnames._CANDIDATE

    class Counted:
        def search(self, source: bytes) -> object:
            searched.append(source)
            return real.search(source)

    monkeypatch.setattr(longnames, "_CANDIDATE", Counted())
    assert longnames.shorten_names(at_limit) is None
    assert searched == []  # too few dots to hold a name past the limit: never searched
