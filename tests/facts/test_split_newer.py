"""A file with syntax newer than the interpreter's: only the top-level statements CPython refuses
are read with libcst (facts.cst.split), and the facts are those of libcst's whole-file read.

Which statements CPython refuses is asked of CPython itself (each compiled alone), so the
tests mean the same on every interpreter: on 3.10 and 3.11 a nested-quote f-string and
`type X = ...` are refused, on 3.12 and 3.13 only the t-string and `except A, B:`.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import fields

import libcst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from import_policy.facts.cpython import from_ast as fast
from import_policy.facts.cst.from_cst import extract as libcst_extract
from import_policy.facts.cst.split import Split
from import_policy.facts.records.model import FileFacts
from import_policy.facts.source.syntax import newest_split

# Ordinary top-level statements (each valid alone and in any order) whose facts depend on
# other statements: imports that qualify tests and callees, TYPE_CHECKING blocks, optional
# imports and probes (a probe's names are read nowhere in the file), early exits, literal
# tables read by loops, `__lazy_modules__`, dict entries, decorators, class bases.
OLD = [
    "import os\n",
    "import torch.cuda as tc\n",
    "from typing import TYPE_CHECKING\n",
    "if TYPE_CHECKING:\n    import numpy as np\n",
    "try:\n    import flash_attn\nexcept ImportError:\n    flash_attn = None\n",
    "try:\n    import triton\nexcept ImportError:\n    pass\n",
    "if not os.environ.get('X'):\n    raise ImportError('no X')\n",
    "def helper(name):\n    import importlib.util\n    return importlib.util.find_spec(name)\n",
    "MODULES = ('cutlass.cute', 'a.b')\n",
    "for name in MODULES:\n    helper(name)\n",
    "class Runner(tc.Stream):\n    import json\n    def go(self):\n        return tc.synchronize()\n",
    "@tc.compile\ndef decorated():\n    return np.zeros(1)\n",
    "env = {'has_te': helper('te')}\n",
    "if env['has_te']:\n    import transformer_engine\nelse:\n    import apex\n",
    "__lazy_modules__ = ['json', 'yaml']\n",
    "import yaml\n",
    "x = 1; import re\n",
    "del env\n",
    "import importlib\nimportlib.import_module('torch.distributed')\n",
    "print(triton, deepspeed)\n",
    "if tc.is_available():\n    HIP = tc.version\nelif sys.platform == 'win32':\n    from . import win\n",
    "def uses():\n    global np\n    np = None\n    return tc.synchronize(), re.compile('x')\n",
    "STREAM: tc.Stream = tc.current\nEVENT = getattr(tc, 'Event', None)\ntc.version.hip = None\n",
]
# Statements a 3.10 or 3.11 parser refuses (some every CPython before 3.14 does), valid for the
# newest Python, each using what the others bind or binding what they use.
NEWER = [
    'LABEL = f"{MODULES["k"]}"\n',
    'if not os.environ.get("Y"):\n    raise ImportError(f"{env["has_te"]} missing")\n',
    'try:\n    import deepspeed\nexcept ImportError as e:\n    MESSAGE = f"{e.args["k"]}"\n',
    'try:\n    import vllm._C\nexcept ImportError:\n    WARN = f"{os.environ["A"]}"\n',
    'def refused(name):\n    import importlib.util\n    spec = importlib.util.find_spec(name)\n    return f"{spec["origin"]}"\n',
    'class Box(tc.Event):\n    label = f"{tc.x["k"]}"\n    def m(self):\n        import pickle\n        return pickle\n',
    '@tc.compile\n\n# a comment between\n@helper("x")\ndef wrapped():\n    return f"{os.environ["HOME"]}"\n',
    'if TYPE_CHECKING:\n    import scipy\n    NOTE = f"{scipy["a"]}"\nelse:\n    scipy = None\n',
    'try:\n    import apex\n    NOTE2 = f"{apex["a"]}"\nexcept ImportError:\n    apex = None\nfinally:\n    pass\n',
    "type Alias = list[int]\n",
    "def generic[T](x: T) -> T:\n    import json\n    return x\n",
    'TABLE = {"a": "cutlass.cute", "b": f"{x["k"]}"}\n',
    'for name in ("torch.cuda", f"{x["y"]}"):\n    helper(name)\n',
    'for name in MODULES:\n    importlib.util.find_spec(name)\n    LOG = f"{name["k"]}"\n',
    'x2 = f"""\n{env["has_te"]}\nimport os\n"""\n',
    'y = f"{1}" \\\n    f"{env["k"]}"\n',
    'import importlib; importlib.import_module(f"{x["k"]}")\n',
    "try:\n    pass\nexcept ValueError, TypeError:\n    import fallback_mod\n",
    't = t"{os.sep}"\n',
    'if tc.is_available():\n    from . import gpu\n    G = f"{gpu["k"]}"\n',
    'tc = f"{tc["rebound"]}"\n',
    'def more():\n    global np\n    import numpy as np\n    return f"{np["k"]}"\n',
    "def generic2[T](x: tc.Stream = tc.default) -> tc.Event:\n    y: tc.Local = hasattr(tc, 'hip')\n    return tc.synchronize\n",
]
IGNORED = ("uses", "content", "parsed")  # uses: compared through `rule_facts` below


def _refused(statement: str) -> bool:
    try:
        compile(statement, "s.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError:
        return True
    return False


def _lines_of(statements: list[str]) -> list[tuple[int, int]]:
    """The first and last line of each statement CPython refuses alone."""
    spans, line = [], 1
    for statement in statements:
        count = statement.count("\n")
        if _refused(statement):
            spans.append((line, line + count - 1))
        line += count
    return spans


def _same(ours: FileFacts, theirs: FileFacts) -> None:
    for field in fields(FileFacts):
        if field.name not in IGNORED:
            assert getattr(ours, field.name) == getattr(theirs, field.name), field.name


def _every_use(name: str, imported: object) -> bool:
    return True


def _check(statements: list[str], module: str = "pkg.sub.mod", is_package: bool = False) -> None:
    source = "".join(statements).encode()
    theirs = libcst_extract(source, "pkg/sub/mod.py", module, is_package)
    assert theirs.syntax_error is None
    parsed = newest_split(source, "pkg/sub/mod.py")[0]
    refused = _lines_of(statements)
    if refused:  # CPython reads every other statement, libcst only these
        assert isinstance(parsed, Split)
        assert [(chunk.first, chunk.last) for chunk in parsed.chunks] == refused
    ours = fast.extract(source, "pkg/sub/mod.py", module, is_package)
    assert ours is not None
    _same(ours, theirs)
    uses = fast.rule_facts(source, "pkg/sub/mod.py", module, is_package, _every_use)
    theirs_uses = libcst_extract(source, "pkg/sub/mod.py", module, is_package, want_uses=True, use_gate=_every_use)
    if uses is not None:  # None: a refused statement spells an imported name (libcst's scopes decide)
        _same(uses, theirs_uses)
        assert uses.uses == theirs_uses.uses


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(OLD), max_size=12),
    st.lists(st.tuples(st.sampled_from(NEWER), st.integers(min_value=0, max_value=12)), min_size=1, max_size=3),
    st.booleans(),
)
def test_split_facts_are_libcsts_whole_file_facts(old: list[str], newer: list[tuple[str, int]], package: bool) -> None:
    statements = list(old)
    for statement, at in newer:
        statements.insert(min(at, len(statements)), statement)
    _check(statements, module="pkg" if package else "pkg.sub.mod", is_package=package)


@pytest.mark.parametrize("statement", NEWER)
def test_each_newer_statement_among_the_others(statement: str) -> None:
    _check([*OLD[:12], statement, *OLD[12:]])
    _check([statement, *OLD])
    _check([*OLD, statement])


@pytest.mark.parametrize("statement", NEWER)
def test_each_newer_statement_where_a_use_rule_reads_the_file(statement: str) -> None:
    """With uses judged: CPython's scopes of the rest where the refused statement spells no
    imported name, else the whole file goes to libcst."""
    source = f"import torch.cuda as tcx\n{statement}def f():\n    tcx.synchronize()\ntcx.x\n".encode()
    ours = fast.rule_facts(source, "m.py", "m", False, _every_use)
    theirs = libcst_extract(source, "m.py", "m", False, want_uses=True, use_gate=_every_use)
    if ours is None:  # the refused statement imports a name of its own
        assert _refused(statement) and "import " in statement
        return
    _same(ours, theirs)
    assert ours.uses == theirs.uses and len(ours.uses) == 2
    using = f"import torch.cuda as tcx\n{statement.replace('os.', 'tcx.')}".encode()
    if _refused(statement) and "os." in statement and "import " not in statement:
        assert fast.rule_facts(using, "m.py", "m", False, _every_use) is None  # libcst's scopes decide


def _synchronize(name: str, imported: object) -> bool:
    return name.startswith("torch.cuda.synchronize")


@pytest.mark.parametrize(
    ("statement", "split"),
    [
        ('X = f"{tcx.device_count()["k"]}"\n', True),  # a use no rule judges: CPython's scopes
        ('def g():\n    return f"{tcx.Stream()["k"]}", tcx.x\n', True),
        ('X = f"{tcx.synchronize()["k"]}"\n', False),  # one the rule judges: the whole file
        ('def g(tcx):\n    return f"{tcx["k"]}"\n', False),  # the name bound again: scopes change
        ('tcx = f"{a["k"]}"\n', False),
        ('def g():\n    global tcx\n    return f"{a["k"]}"\n', False),
        ('X = f"{a.tcx["k"]}"\n', False),  # an attribute's name: read as a binding would be
        ('from m import tcx\nX = f"{a["k"]}"\n', True),  # the import is CPython's to read
        ('from m import tcx; X = f"{a["k"]}"\n', False),
        ('match a:\n    case {"k": tcx}:\n        X = f"{a["k"]}"\n', False),
        ('type tcx = int\n', False),
        ('X = [f"{a["k"]}" for tcx in b]\n', False),
        ('X = f"{f(tcx=1)["k"]}"\n', True),  # a keyword binds nothing
    ],
)
def test_uses_under_a_rule_come_from_the_rest_unless_a_refused_statement_could_change_them(
    statement: str, split: bool
) -> None:
    source = f"import torch.cuda as tcx\n{statement}def f():\n    tcx.synchronize()\ntcx.synchronize()\n".encode()
    ours = fast.rule_facts(source, "m.py", "m", False, _synchronize)
    theirs = libcst_extract(source, "m.py", "m", False, want_uses=True, use_gate=_synchronize)
    if not _refused(statement):
        return
    assert (ours is not None) == split
    if ours is not None:
        _same(ours, theirs)
        lines = statement.count("\n")
        assert ours.uses == theirs.uses and [use.span.line for use in ours.uses] == [lines + 3, lines + 4]


FSTRING = 'LABEL = f"{TABLE["k"]}"\n'


@pytest.mark.skipif(not _refused(FSTRING), reason="this interpreter parses PEP 701 f-strings itself")
def test_one_nested_quote_fstring_sends_only_its_statement_to_libcst(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole file went to libcst (some twenty times CPython's cost): now libcst parses the
    one statement, and CPython's extractor gives the facts."""
    block = "import os\n\n\ndef f{n}(x):\n    import json\n    return json.dumps(x) + os.sep\n\n\n"
    source = ("TABLE = {'k': 1}\n" + "".join(block.format(n=n) for n in range(40)) + FSTRING
              + "".join(block.format(n=n) for n in range(40, 80))).encode()
    parsed: list[int] = []
    parse = libcst.parse_module

    def counting(text: str | bytes, *args: object, **kwargs: object) -> libcst.Module:
        parsed.append(len(text))
        return parse(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(libcst, "parse_module", counting)
    facts = fast.extract(source, "m.py", "m", False)
    assert facts is not None and facts.syntax_error is None
    assert len(facts.imports) == 160 and len(facts.functions) == 80
    assert sum(parsed) == len(FSTRING)
    monkeypatch.undo()
    _same(facts, libcst_extract(source, "m.py", "m", False))


@pytest.mark.skipif(not _refused(FSTRING), reason="this interpreter parses PEP 701 f-strings itself")
@pytest.mark.parametrize(
    "source",
    [
        # more refused statements than are read one by one: the whole file
        "".join(f'X{n} = f"{{a["{n}"]}}"\n' for n in range(20)) + "import os\n",
        # a decorator CPython's stretch would end on, with no statement after it
        '@dec\ndef f():\n    return f"{a["k"]}"\nimport os\n',
        # an `else:` after a refused `if` body
        'import os\nif os:\n    X = f"{a["k"]}"\nelse:\n    import json\n',
    ],
)
def test_files_split_or_not_have_libcsts_facts(source: str) -> None:
    data = source.encode("latin-1")
    ours = fast.extract(data, "m.py", "m", False)
    theirs = libcst_extract(data, "m.py", "m", False)
    assert theirs.syntax_error is None
    if ours is not None:
        _same(ours, theirs)


@pytest.mark.parametrize(
    "source",
    [
        'x = f"{a["k"]}"\ny = = 1\n',  # an error past the refused statement
        'x = f"{a["k"]}"\ny = f"{b["k"]}" +\n',  # an error inside a later one
        'x = = 1\ny = f"{b["k"]}"\n',  # CPython's error first
        'def f():\n    x = f"{a["k"]}"\n  y = 1\n',  # a dedent to no block
        'x = f"{a["k"]}"\n  y = 1\n',  # an indented line after it
        'x = f"{a["k"]}"\nelse:\n    pass\n',
        '@dec\nx = f"{a["k"]}"\n',
    ],
)
def test_a_syntax_error_around_refused_statements_is_the_whole_files(source: str) -> None:
    """An error anywhere is what the whole-file read says (facts.cst.newer decides it)."""
    data = source.encode()
    ours = fast.extract(data, "m.py", "m", False)
    theirs = libcst_extract(data, "m.py", "m", False)
    assert ours is not None and ours.syntax_error is not None and theirs.syntax_error is not None
    assert ours.syntax_error == theirs.syntax_error


@pytest.mark.skipif(not _refused(FSTRING), reason="this interpreter parses PEP 701 f-strings itself")
@pytest.mark.parametrize("encoding", ["latin-1", "utf-8"])
def test_a_file_with_a_coding_cookie_is_split_with_its_columns(encoding: str) -> None:
    """The stretches are compiled as the file's text (its cookie read once): columns after
    letters of two bytes in UTF-8 and one in latin-1 are CPython's and libcst's alike."""
    source = (
        f"# -*- coding: {encoding} -*-\nimport os\n"
        'É = "é" + f"{a["k"]}" + os.path.join("é", __import__("json").x)\n'
        'def g():\n    return "é", os.getcwd(), __import__("re")\n'
    ).encode(encoding)
    ours = fast.extract(source, "m.py", "m", False)
    assert ours is not None
    assert [fact.name for fact in ours.imports] == ["os", "json", "re"]
    _same(ours, libcst_extract(source, "m.py", "m", False))


def test_a_refused_statements_reads_keep_imports_elsewhere_from_being_probes() -> None:
    """An import in a `try:` whose names only a refused statement reads is no probe (it is used)."""
    source = b'try:\n    import deepspeed\nexcept ImportError:\n    deepspeed = None\nX = f"{deepspeed["k"]}"\n'
    ours = fast.extract(source, "m.py", "m", False)
    assert ours is not None and [fact.probe for fact in ours.imports] == [False]
    _same(ours, libcst_extract(source, "m.py", "m", False))


if sys.version_info >= (3, 14):  # every construct above parses: nothing is split
    pytestmark = pytest.mark.skip(reason="CPython 3.14 reads every construct these tests split")
