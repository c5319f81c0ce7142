"""The prefilter skips no file Python would run with a forbidden import, however spelled.

Each generated spelling (tests/spellings.py: white space the tokenizer accepts, PEP 263
encodings, every form of a dynamic import's literal, NFKC letters) is checked as a run
does it and by the read-everything path (no prefilter: every file parsed, the ROCm pass
reading every module); the diagnostics must be the same, and a spelling Python compiles
must be reported by the read-everything path (so the comparison is not vacuous).
"""

from __future__ import annotations

import ast
import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from import_policy.policy.load import load
from import_policy.config.model import Policy
from import_policy.discovery.files import SourceFile
from import_policy.pipeline.engine import run
from import_policy.pipeline.plan import Plan, Selection
from spellings import NEWER_LINES, Spelling, spellings
from corner_cases import DYNAMIC_SPELLINGS, TRICKY_BYTES

POLICY = """\
version: 1
rules:
  - id: no-pickle
    forbid: [pickle]
  - id: cuda-sync
    forbid: [torch.cuda.synchronize]
  - id: no-relative
    kind: relative-imports
    ban: all
rocm_safety:
  heavy_modules: [tilelang]
  entry_modules: [pkg]
"""
ENTRY = b"import pkg.mod\n"


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Policy:
    root = tmp_path_factory.mktemp("project")
    (root / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_bytes(ENTRY)
    (root / "pkg" / "mod.py").write_bytes(b"")
    return load(None, root).policy


def diagnostics(policy: Policy, source: bytes, prefilter: bool) -> list[tuple[str, str, int]]:
    sources = {"pkg/__init__.py": ENTRY, "pkg/mod.py": source}
    files = [SourceFile(policy.root / path, path, "python") for path in sources]
    plan = Plan(policy, Selection(), prefilter=prefilter)
    found = run(plan, files, read=lambda file: sources[file.relative]).diagnostics
    return [(d.path, d.rule, d.line) for d in found]


def compiles(source: bytes) -> bool:
    """Whether the running CPython compiles it, a line of the newest syntax (which it may not
    know, and which holds no import) left out."""
    for line in NEWER_LINES:
        source = source.replace(line.encode(), b"")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


def check(policy: Policy, spelling: Spelling) -> None:
    everything = diagnostics(policy, spelling.source, prefilter=False)
    assert diagnostics(policy, spelling.source, prefilter=True) == everything, spelling.source
    if compiles(spelling.source) and not spelling.lazy:  # (see spellings.statement)
        expected = "no-pickle" if spelling.target == "pickle" else "heavy-import-reachable"
        assert {rule for _, rule, _ in everything} & {expected, "no-relative"}, (spelling.source, everything)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(spellings(("pickle", "tilelang")))
def test_every_spelling_is_read_as_the_read_everything_path_reads_it(policy: Policy, spelling: Spelling) -> None:
    """The fast subset's share of the property; the run below tries many more spellings."""
    check(policy, spelling)


@pytest.mark.slow
@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(spellings(("pickle", "tilelang")))
def test_many_spellings_are_read_as_the_read_everything_path_reads_them(policy: Policy, spelling: Spelling) -> None:
    check(policy, spelling)


SOURCES = [*TRICKY_BYTES, *(s.encode("utf-8") for s in DYNAMIC_SPELLINGS)]


@pytest.mark.parametrize("source", SOURCES, ids=[repr(s[:30]) for s in SOURCES])
def test_tricky_spellings(policy: Policy, source: bytes) -> None:
    check(policy, Spelling(source, "pickle", lazy=False))
    if b"pickle" in source:  # the same spelling of a heavy module, for the ROCm pass
        target = "tilelang"
        check(policy, Spelling(source.replace(b"pickle", target.encode()), target, lazy=False))



def test_a_file_of_newer_syntax_in_another_encoding_is_read_alike_on_both_paths(policy: Policy) -> None:
    # A PEP 695 alias in UTF-7 and in ISO-2022-JP with escapes: the split of newer syntax compiled the stretches from the
    # decoded text while the whole-file reading went to libcst (found by the property above).
    source = (
        b"# -*- coding: utf-7 -*-\n+AHQAeQBwAGUAIABBAGwAaQBhAHMAIAA9ACAAbABpAHMAdABbAGkAbgB0AF0-\n"
        b"+AAwAaQBtAHAAbwByAHQAIABwAGkAYwBrAGwAZQ-\n"
    )  # "type Alias = list[int]\n\x0cimport pickle\n", each character base64-encoded
    check(policy, Spelling(source, "pickle", lazy=False))
    escaped = "".join(f"{c}\x1b(B" for c in "type Alias = list[int]\n\x0cimport pickle\n")
    check(policy, Spelling(b"# -*- coding: iso2022_jp -*-\n" + escaped.encode("ascii"), "pickle", lazy=False))
