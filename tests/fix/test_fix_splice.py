"""Fixes at the cost of the statement: only the edited statements go through libcst.

The statement-local path must write exactly what the whole-file path writes, keep
every other byte, and give way to the whole file where a statement cannot be cut
out on its own (`;`-joined, a one-line `if x: import y`, a file not in UTF-8, ...).
"""

from __future__ import annotations

import ast
from pathlib import Path

import libcst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from import_policy.policy.load import load
from import_policy.config.model import Policy
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import SourceFile
from import_policy.fix import apply
from import_policy.edits.payload import applies
from import_policy.fix.run import fix_source
from import_policy.fix.splice import isolate
from import_policy.pipeline.engine import run
from import_policy.pipeline.plan import Plan, Selection

POLICY = """\
version: 1
rules:
  - id: triton-gateway
    forbid: [triton]
    fix:
      gateway: vllm.triton_utils
      exports: {triton: triton, triton.language: tl}
  - id: regex-not-re
    forbid: [re]
    except: [re._constants]
    fix: {replace_module: regex}
  - id: pybase64
    forbid: [base64]
    fix: {replace_module: pybase64}
"""


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Policy:
    root = tmp_path_factory.mktemp("policy")
    (root / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    return load(root / "import-policy.yaml", root).policy


def findings(policy: Policy, source: bytes) -> list[Diagnostic]:
    file = SourceFile(policy.root / "app/mod.py", "app/mod.py", "python")
    return [d for d in run(Plan(policy, Selection()), [file], read=lambda _: source).diagnostics if applies(d, True)]


def both(policy: Policy, source: bytes) -> tuple[apply.FileFix | None, apply.FileFix]:
    wanted = findings(policy, source)
    return apply._fix_statements(source, wanted), apply._fix_file(source, wanted)


LOCAL = [
    b"import re\n",
    b"import os\nimport re  # keep\nx = 1\n",
    b"def f():\n    import re\n    return re\n",
    b"if x:\n\timport base64\n\ty = 1\n",
    b"import os\r\nimport triton, re\r\nx = 1\r\n",
    b"\xef\xbb\xbfimport re\nx = '\xc3\xa9'\n",
    b"\xef\xbb\xbf# \xc3\xa9\nclass C:\n    import base64  # \xc3\xa9\n",
    b"from re import (  # why\n    sub,  # s\n    # between\n    match,\n)  # after\n",
    b"from base64 import b64encode, \\\n    b64decode\n",
    b"import os, \\\n    re\n",
    b"try:\n    import triton\nexcept ImportError:\n    triton = None\n",
    b"x = '''\nimport re\n'''\nimport re\n",
    b"\x0c\nimport re\n\x0c\ny = 1 \t \n",
    b"def f():\n    from re import (\nsub,\n        )\n    return sub\n",  # continuation lines left of the statement
    b"import os\nimport triton, re\r\nx = 1\r\n",  # mixed line breaks: new lines take the first one's
    b"import re;\n",
    b"import re   \t\n",
    b"import re, base64  # two rules, one statement\n",
]


@pytest.mark.parametrize("source", LOCAL)
def test_the_statement_alone_gives_what_the_whole_file_gives(policy: Policy, source: bytes) -> None:
    local, whole = both(policy, source)
    assert local is not None, "this statement stands alone: it must not take the whole file"
    assert local.new == whole.new != source
    assert len(local.applied) == len(whole.applied)


WHOLE = [
    b"import os; import re\n",  # joined with `;`
    b"import re; x = 1\n",
    b"if x: import re\n",  # the body of a one-line compound statement
    b"# -*- coding: latin-1 -*-\nimport re\nx = '\xe9'\n",  # columns are not the file's bytes
    b"import re",  # no line break at the end
    b"from vllm.triton_utils import tl\nimport triton\n",  # merged into the existing gateway import
    b"import triton\nimport triton.language as tl\n",  # two statements to one gateway
]


@pytest.mark.parametrize("source", WHOLE)
def test_a_statement_that_cannot_be_cut_out_takes_the_whole_file(policy: Policy, source: bytes) -> None:
    local, whole = both(policy, source)
    assert local is None
    assert whole.changed
    assert fix_source(source, "app/mod.py", policy)[0] == whole.new


def test_lone_carriage_returns_are_kept(policy: Policy) -> None:
    # libcst drops the last lone `\r` of such a file; the statement alone keeps every byte.
    local, _ = both(policy, b"x = 1\rimport re\rprint(x)\r")
    assert local is not None and local.new == b"x = 1\rimport regex as re\rprint(x)\r"


def test_only_the_statements_are_parsed_with_libcst(policy: Policy, monkeypatch: pytest.MonkeyPatch) -> None:
    body = "".join(f"def f{n}(x):\n    return [x + {n} for _ in range(3)]\n\n\n" for n in range(3000))
    source = ("import os\nimport re\n\n\n" + body + "class C:\n    import base64  # late\n").encode()
    parsed: list[int] = []
    real = libcst.parse_module

    def spy(code: bytes | str, *args: object, **kwargs: object) -> libcst.Module:
        parsed.append(len(code))
        return real(code, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(apply.cst, "parse_module", spy)
    new, remaining = fix_source(source, "app/mod.py", policy)
    assert remaining == []
    assert new == source.replace(b"import re\n", b"import regex as re\n").replace(
        b"    import base64  # late", b"    import pybase64 as base64  # late")
    assert parsed and max(parsed) < 100


def test_a_splice_that_would_not_compile_is_left_to_the_whole_file(policy: Policy, tmp_path: Path) -> None:
    # `class` passes as an identifier in the configuration, but `from gw import class` does not compile.
    root = tmp_path / "p"
    root.mkdir()
    (root / "import-policy.yaml").write_text(
        "version: 1\nrules:\n  - id: t\n    forbid: [triton]\n    fix: {gateway: gw, exports: {triton: class}}\n")
    bad = load(root / "import-policy.yaml", root).policy
    new, remaining = fix_source(b"import os\nimport triton\n", "m.py", bad)
    assert new == b"import os\nimport triton\n"
    assert "the fixed file would not parse" in remaining[0].message


def test_isolate_gives_each_statement_its_bytes(policy: Policy) -> None:
    source = b"import os\n\nif x:\n    from re import (\n        sub,\n    )  # c\n    y = 1\n"
    found = isolate(source, findings(policy, source))
    assert found is not None
    ((statement, _),) = found.values()
    assert (statement.first_line, statement.last_line, statement.indent) == (4, 6, "    ")
    assert source[statement.start:statement.end] == b"    from re import (\n        sub,\n    )  # c\n"


FORMS = [
    "import triton", "import triton.language as tl", "import os, triton", "import re", "import re as r",
    "from re import sub, _constants", "from base64 import (\n    b64encode,  # c\n    b64decode,\n)",
    "import triton  # c", "# note", "x = 1", "", "import os; import re", "if x: import base64",
    "if x:\n    import re\n    import base64", "def f():\n    import re\n    return re", "s = '''\nimport re\n'''",
    "from base64 import b64encode, \\\n    b64decode",
]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(FORMS), st.sampled_from(["\n", "\r\n"])), max_size=8), st.booleans())
def test_statement_and_whole_file_agree(policy: Policy, lines: list[tuple[str, str]], bom: bool) -> None:
    """The fast subset's share of the property; the run below tries many more files."""
    _agree(policy, lines, bom)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(FORMS), st.sampled_from(["\n", "\r\n"])), max_size=8), st.booleans())
def test_many_statements_and_whole_files_agree(policy: Policy, lines: list[tuple[str, str]], bom: bool) -> None:
    _agree(policy, lines, bom)


def _agree(policy: Policy, lines: list[tuple[str, str]], bom: bool) -> None:
    # Line breaks mixed line by line: new lines must take the file's first one, old ones stay.
    text = "".join(line.replace("\n", newline) + newline for line, newline in lines)
    source = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    local, whole = both(policy, source)
    if local is not None:
        assert local.new == whole.new
        assert len(local.applied) == len(whole.applied)
        ast.parse(local.new)


def test_a_warning_elsewhere_in_the_file_stays_quiet(policy: Policy, recwarn: pytest.WarningsRecorder) -> None:
    local, _ = both(policy, b"import re\nP = '\\d'\n")
    assert local is not None and local.new == b"import regex as re\nP = '\\d'\n"
    assert not [w for w in recwarn if issubclass(w.category, (SyntaxWarning, DeprecationWarning))]


def test_a_refused_fix_is_told_on_the_callers_finding(policy: Policy) -> None:
    from import_policy.edits.payload import AliasEdit, ImportFix

    source = b"import os\nimport re\nimport triton\n"
    good = findings(policy, source)[0]
    wrong = Diagnostic("r", "error", "app/mod.py", 3, 8, 3, 14, "m", suppress_lines=(3, 3), fixable=True,
                       fix=ImportFix("import", (AliasEdit("tritonx", False, "tritonx", "regex"),)))
    local = apply._fix_statements(source, [good, wrong])
    assert local is not None
    assert local.new == b"import os\nimport regex as re\nimport triton\n"
    assert local.applied == [good]
    assert [(d is wrong, why) for d, why in local.failed] == [(True, "`tritonx` is not in the statement the finding points at")]
