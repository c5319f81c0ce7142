"""The lazy loader a module installs, as its facts record it (facts.cpython.loaders): the real
packages' spellings, the record's round trip through the cache, and a hostile table."""

from __future__ import annotations

import ast
import textwrap

import pytest

from import_policy.facts.cpython import loaders
from import_policy.facts.cpython.loaders import loader_of
from import_policy.facts.cpython.from_ast import graph_facts
from import_policy.facts.records.model import LoaderFact
from import_policy.facts.records.serial import from_json, to_json
from import_policy.facts.source.exports import exports_of


def loader(source: str, module: str = "pkg", is_package: bool = True) -> LoaderFact | None:
    return loader_of(ast.parse(textwrap.dedent(source)), module, is_package)


def test_huggingface_hubs_vendored_attach() -> None:
    found = loader("""\
        import importlib
        _SUBMOD_ATTRS = {"file_download": ["hf_hub_download"], "hf_api": ["HfApi", "list_models"]}

        def _attach(package_name, submodules=None, submod_attrs=None):
            attr_to_modules = {attr: mod for mod, attrs in submod_attrs.items() for attr in attrs}

            def __getattr__(name):
                return importlib.import_module(f"{package_name}.{attr_to_modules[name]}")

            return __getattr__, None

        __getattr__, __dir__ = _attach(__name__, submodules=[], submod_attrs=_SUBMOD_ATTRS)
        """, "huggingface_hub")
    assert found == LoaderFact("attach", 12, (
        ("hf_hub_download", "huggingface_hub.file_download"), ("HfApi", "huggingface_hub.hf_api"),
        ("list_models", "huggingface_hub.hf_api"),
    ))


def test_transformers_top_level_structure() -> None:
    """A literal structure, a conditional entry, `define_import_structure` of `models` with its
    prefix, and `.update` of one into the other, as transformers' `__init__` spells them."""
    found = loader("""\
        import sys
        from pathlib import Path
        from typing import TYPE_CHECKING
        from .utils import _LazyModule, define_import_structure, is_tokenizers_available

        _import_structure = {"configuration_utils": ["PreTrainedConfig"], "data.data_collator": ["DataCollator"]}
        try:
            if not is_tokenizers_available():
                raise OptionalDependencyNotAvailable()
        except OptionalDependencyNotAvailable:
            _import_structure["utils.dummy"] = [n for n in dir(x) if n]
        else:
            _import_structure["tokenization_utils_tokenizers"] = ["PreTrainedTokenizerFast"]

        if TYPE_CHECKING:
            from .configuration_utils import PreTrainedConfig
        else:
            _import_structure = {k: set(v) for k, v in _import_structure.items()}
            import_structure = define_import_structure(Path(__file__).parent / "models", prefix="models")
            import_structure[frozenset({})].update(_import_structure)
            sys.modules[__name__] = _LazyModule(
                __name__, globals()["__file__"], import_structure, module_spec=__spec__,
                extra_objects={"__version__": "5"},
            )
        """, "transformers")
    assert found is not None and found.kind == "lazymodule" and found.replaces and not found.cut
    assert found.files == (("models", "models"),)
    assert found.bound == ("__version__",)
    table = dict(found.table)
    assert table["PreTrainedConfig"] == "transformers.configuration_utils"
    assert table["DataCollator"] == "transformers.data.data_collator"
    assert table["data"] == "transformers.data"  # a dotted key's parents are modules too
    assert table["PreTrainedTokenizerFast"] == "transformers.tokenization_utils_tokenizers"
    assert "utils.dummy" not in table  # a value the pass cannot evaluate is no entry


def test_a_getattr_whose_import_is_not_literal_is_a_cut() -> None:
    found = loader("""\
        def __getattr__(name):
            import importlib
            return importlib.import_module(compute(name))
        """)
    assert found == LoaderFact("getattr", 1, cut="`importlib.import_module(compute(name))` (line 3)")


def test_a_module_function_the_getattr_calls_runs_with_the_name() -> None:
    """`return _load(name)`: the helper runs with what the call passes (by position, keyword or
    default, one helper calling another); one it cannot bind (`*args`) is a cut where it imports."""
    found = loader("""\
        import importlib
        _MAP = {"dump": "utils", "Model": "models"}

        def _module(name, package=__name__):
            return importlib.import_module(f"{package}.{_MAP[name]}")

        def _load(name):
            return getattr(_module(name=name), name)

        def __getattr__(name):
            if name in _MAP:
                return _load(name)
            raise AttributeError(name)
        """)
    assert found == LoaderFact("getattr", 10, (("dump", "pkg.utils"), ("Model", "pkg.models")))
    cut = loader("""\
        import importlib

        def _load(*names):
            return importlib.import_module(names[0])

        def __getattr__(name):
            return _load(name)
        """)
    assert cut == LoaderFact("getattr", 6, cut="`_load(name)` (line 7)")
    quiet = loader("""\
        def _check(*names):
            return names

        def __getattr__(name):
            _check(name)
            raise AttributeError(name)
        """)
    assert quiet == LoaderFact("getattr", 4)


def test_getattr_bound_to_something_else_is_a_cut() -> None:
    assert loader("__getattr__ = make_loader()\n") == LoaderFact(
        "getattr", 1, cut="`__getattr__` from `make_loader(...)` (line 1)",
    )
    assert loader("__getattr__ = other\n") == LoaderFact("getattr", 1, cut="`__getattr__ = other` (line 1)")


def test_the_loader_round_trips_through_the_cache() -> None:
    source = b'T = {"a": "x"}\ndef __getattr__(name):\n    import importlib\n    return importlib.import_module("." + T[name], __name__)\n__all__ = ["a"]\n'
    facts = graph_facts(source, "pkg/__init__.py", "pkg", True)
    assert facts.loader == LoaderFact("getattr", 2, (("a", "pkg.x"),), star=("a",))
    assert facts.exports == ("a",)
    assert from_json(to_json(facts)) == facts


def test_exports_as_transformers_reads_them() -> None:
    text = '@requires(backends=("torch",))\nclass A:\n    pass\n\n__all__ = [\n    "B",\n    "C",\n]\n'
    assert exports_of(text) == ("A", "B", "C")
    assert exports_of('__all__ = ["X", "Y"]\n') == ("X", "Y")


def test_a_huge_table_is_read_up_to_a_budget_the_rest_cuts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loaders, "_TOTAL_BUDGET", 300)  # the same as a table of 70,000 names
    names = 1_000
    table = ",".join(f'"n{i}": "m{i}"' for i in range(names))
    found = loader(
        f"T = {{{table}}}\ndef __getattr__(name):\n    import importlib\n"
        "    if name in T:\n        return importlib.import_module('.' + T[name], __name__)\n    raise AttributeError(name)\n"
    )
    assert found is not None
    resolved = [module for _, module in found.table if module]
    assert len(found.table) == names and 0 < len(resolved) < names  # the rest are cuts, never dropped
