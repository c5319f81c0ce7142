"""The prefilter may skip a parse only where no import rule could fire."""

from __future__ import annotations

import pytest

from import_policy.prefilter import Prefilter

HEADS = Prefilter.for_heads(["re", "pickle"])


@pytest.mark.parametrize(
    "source",
    [
        b"import re\n",
        b"import os, re\n",
        b"import os, \\\n    re\n",
        b"from re import (\n    sub,\n)\n",
        b"from  pickle.x import y\n",
        b"x = 1; import re as r\n",
        b"import importlib\nimportlib.import_module('pickle')\n",
        b"__import__(\"re\")\n",
        b"if x:\n\timport re\n",
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
        b"",
    ],
)
def test_files_that_cannot_fire_are_skipped(source: bytes) -> None:
    assert not HEADS.wants(source)


def test_a_file_inside_a_forbidden_package_is_kept() -> None:
    assert HEADS.wants(b"from . import x\n", module="pickle.sub")


def test_no_heads_wants_nothing() -> None:
    assert not Prefilter.for_heads([]).wants(b"import re\n")


def test_use_analysis_needs_the_head_imported_and_the_last_name_spelled() -> None:
    from import_policy.prefilter import UsePrefilter

    uses = UsePrefilter.for_patterns([("torch", "synchronize"), ("transformers", "*ImageProcessorFast")])
    assert uses.wants(b"import torch\ntorch.cuda.synchronize()\n")
    assert not uses.wants(b"import torch\ntorch.cuda.is_available()\n")
    assert not uses.wants(b"synchronize = 1\n")
    assert uses.wants(b"import transformers as t\nt.models.x.SiglipImageProcessorFast\n")
    assert not uses.wants(b"from transformers import AutoConfig\nAutoConfig.from_pretrained('x')\n")
    assert UsePrefilter.for_patterns([("a", "*")]).wants(b"import a\na.b\n")
