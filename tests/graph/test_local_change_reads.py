"""An edit that only adds an attribute read changes what the module's own items read (module
level) or what its function gives a caller (a body): the kept graph derives that module again,
never the whole graph (graph.local_change)."""

from __future__ import annotations

from import_policy.facts.cpython.from_ast import graph_facts
from import_policy.facts.records.model import FileFacts
from import_policy.graph.local_change import LocalChange, local_change


def _facts(text: str) -> FileFacts:
    return graph_facts(text.encode(), "pkg/a.py", "pkg.a", False)


def test_a_module_level_attribute_read_is_the_modules_own() -> None:
    before, now = _facts("import pkg\nprint(1)\n"), _facts("import pkg\nprint(pkg.Model)\n")
    assert now.attributes and not before.attributes
    assert local_change(before, now) == LocalChange(frozenset(), True)


def test_a_function_bodys_attribute_read_is_read_through_the_function() -> None:
    before = _facts("import pkg\n\ndef load():\n    return 1\n")
    now = _facts("import pkg\n\ndef load():\n    pkg.LLM\n    return 1\n")
    assert local_change(before, now) == LocalChange(frozenset({"load"}), False)
