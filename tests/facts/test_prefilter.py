"""The prefilter may skip a parse only where no import rule could fire."""

from __future__ import annotations

import pytest

from import_policy.patterns import DottedPattern
from import_policy.facts.prefilter.literal_imports import LiteralImports, literal_imports
from import_policy.facts.prefilter.prefilter import Prefilter
from import_policy.facts.prefilter.pytext import python_text


def prefilter(*patterns: str) -> Prefilter:
    built = Prefilter.for_patterns(DottedPattern.compile(p) for p in patterns)
    assert built is not None
    return built


HEADS = prefilter("re", "pickle")


@pytest.mark.parametrize(
    "source",
    [
        b"import re\n",
        b"import os, re\n",
        b"import os.path as p, re as r\n",
        b"import os, \\\n    re\n",
        b"from re import (\n    sub,\n)\n",
        b"from  pickle.x import y\n",
        b"x = 1; import re as r\n",
        b"try: import re\nexcept: pass\n",
        b"import importlib\nimportlib.import_module('pickle')\n",
        b"__import__(\"re\")\n",
        b"if x:\n\timport re\n",
        b"\xef\xbb\xbfimport re\n",
    ],
)
def test_candidates_are_kept(source: bytes) -> None:
    assert HEADS.wants(source)


@pytest.mark.parametrize(
    "source",
    [
        b"import regex as re\nre.compile('x')\n",
        b"x = re.sub('a', 'b', s)\n",
        b"import pickles\n",
        b"from mypkg.re import x\n",
        b"from mypkg import re\n",  # a member named like the head: not the module
        b"from vllm.triton_utils import pickle\n",
        b"",
    ],
)
def test_files_that_cannot_fire_are_skipped(source: bytes) -> None:
    assert not HEADS.wants(source)


def test_a_file_inside_a_forbidden_package_is_kept() -> None:
    assert HEADS.wants(b"from . import x\n", module="pickle.sub")


def test_a_file_inside_a_forbidden_package_of_several_segments_is_kept() -> None:
    # `from . import x` in `a.engine.sub` imports `a.engine.x`: no segment of the forbidden
    # name is spelled in the file; they come from its own module path.
    import importlib.util

    assert importlib.util.resolve_name(".x", "a.engine") == "a.engine.x"
    assert prefilter("a.engine").wants(b"from . import x\n", module="a.engine.sub")
    assert prefilter("a.engine").wants(b"from .. import x\n", module="a.engine.deep.sub")
    assert not prefilter("a.engine").wants(b"from . import x\n", module="a.other.sub")


def test_the_forbidden_name_must_be_spelled() -> None:
    names = prefilter("transformers.**.PretrainedConfig", "torch.cuda.synchronize")
    assert names.wants(b"from transformers import AutoConfig, PretrainedConfig\n")
    assert names.wants(b"from transformers import (\n    PretrainedConfig,\n)\n")
    assert not names.wants(b"from transformers import AutoConfig\n")
    assert names.wants(b"import torch\ntorch.cuda.synchronize()\n")
    assert not names.wants(b"import torch\ntorch.cuda.is_available()\n")
    assert not names.wants(b"synchronize = 1\n")


def test_wildcards() -> None:
    assert prefilter("a.*").wants(b"import a\na.b\n")
    assert prefilter("t.**.*Fast").wants(b"from t.m import XFast\n")
    assert not prefilter("t.**.*Fast").wants(b"from t.m import X\n")
    assert Prefilter.for_patterns([DottedPattern.compile("*.x")]) is None


def test_no_patterns_wants_nothing() -> None:
    assert not prefilter().wants(b"import re\n")


def test_every_name_after_the_head_must_be_spelled() -> None:
    names = prefilter("torch.cuda.device")
    assert names.wants(b"import torch\nwith torch.cuda.device(0): pass\n")
    assert not names.wants(b"import torch\nx = torch.device('cpu')\n")


@pytest.mark.parametrize(
    "source",
    [
        b"import\fpickle\n",
        b"\f\fimport pickle\n",
        b"import os,\f\\\r\n pickle\n",
        b"import os . path, pickle\n",
        b"import \xc3\xa9, pickle\n",
        b"lazy import pickle\n",
        b"from\fpickle import x\n",
        "import \uff50ickle\n".encode(),  # NFKC: Python imports `pickle`
        b"# coding: utf-7\nimport +AHA-ickle\n",
        b"# coding: iso2022_jp\nimp\x1b(Bort pickle\n",
        b"# coding: hz\nimp~\nort pickle\n",
        b"#coding:\tutf-7\nimport +AHA-ickle\n",  # a tab after `coding:` (PEP 263's pattern allows it)
        b"# vim: set fileencoding=\tutf-7 :\nimport +AHA-ickle\n",
        b"import importlib\nimportlib.import_module(('pickle'))\n",
        b"import importlib\nimportlib.import_module('''pickle''')\n",
        b"import importlib\nimportlib.import_module(  # c\n 'pickle')\n",
        b"import importlib\nimportlib.import_module('\\x70ickle')\n",
        b"__import__('pic' 'kle')\n",
        b"from importlib import import_module as im\nim('pickle')\n",
        b"from importlib import import_module\nimport_module(name='pickle')\n",
        b"from importlib import import_module\nimport_module(name = # c\n 'pickle')\n",
        b"import importlib\nimportlib.import_module(package=None, name='os')\nimportlib.import_module(name='pickle')\n",
        b"__import__(name='pickle')\n",
        b"from importlib import import_module\nimport_module(f'pickle')\n",
        b"import importlib\nimportlib.__import__('pickle')\n",
        b"import builtins\nbuiltins.__import__(f'pickle')\n",
        "from importlib import import_module\nimport_module(\uff4eame='pickle')\n".encode(),  # NFKC: `name`
    ],
)
def test_spellings_python_runs_are_kept(source: bytes) -> None:
    if source.startswith(b"#"):  # the file is in the codec its cookie names, as Python reads it
        import io
        import tokenize

        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        assert "pickle" in source.decode(encoding)
    assert HEADS.wants(python_text(source))


@pytest.mark.parametrize(
    "source",
    [
        b"from importlib import import_module\nimport_module(name)\n",
        b"import importlib\nimportlib.import_module('os', package)\n",
        b"import importlib\nimportlib.import_module(  # pickle\n    'os'\n)\n",
        b"# coding: latin-1\nx = '\xe9'\n",
    ],
)
def test_dynamic_imports_of_other_names_are_skipped(source: bytes) -> None:
    assert not HEADS.wants(python_text(source))


def test_an_ascii_file_is_its_own_text() -> None:
    source = b"import os\n"
    assert python_text(source) is source


def test_literal_imports() -> None:
    assert literal_imports(b"import_module('a.b', x)\n__import__(\"c\")") == LiteralImports((b"a.b", b"c"), False)
    assert literal_imports(b"from importlib import import_module\n").unknown is False
    assert literal_imports(b"import_module(f'{x}')").unknown is True
    assert literal_imports(b"import_module(n)").unknown is False
    assert literal_imports(b"import_module(name='a', package=p)") == LiteralImports((b"a",), False)
    assert literal_imports(b"import_module(f'a.b')\n__import__(Rf'c')") == LiteralImports((b"a.b", b"c"), False)
    assert literal_imports(b"import_module(name=n)").unknown is False
    assert literal_imports(b"import_module(package=p, name='a')").unknown is True  # the name may come later
    assert literal_imports(b"import_module(names='a')").unknown is True
