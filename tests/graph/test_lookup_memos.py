"""Lookups the graph asks again and again are answered once per run: a module on the search
path (`SearchPath.find`) and the class a dotted name names through re-exports
(`Project.class_key`), with the answers a fresh derivation gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from import_policy.facts.cpython.from_ast import graph_facts
from import_policy.graph.reach import Project
from import_policy.graph.search_path import SearchPath
from import_policy.config.model import Origin, RocmSafety
from import_policy.patterns import DottedPattern
from import_policy.rocm.reachability import question_of

ROCM = RocmSafety(
    heavy_modules=(DottedPattern.compile("heavy"),), probes=(), guards=(), files=(), entry_modules=("app",),
    origin=Origin("test", 1),
)


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    for relative in ("pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/leaf.py", "flat.py"):
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        (site / relative).write_text("", encoding="utf-8")
    return site


def test_a_module_is_searched_for_once_and_found_as_a_fresh_path_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = _site(tmp_path)
    names = ("pkg", "pkg.sub", "pkg.sub.leaf", "flat", "pkg.missing", "nothing", "pkg.sub.leaf.deeper")
    fresh = {name: SearchPath([str(site)]).find(name) for name in names}
    search = SearchPath([str(site)])
    searched: list[str] = []
    real = SearchPath._search

    def counted(self: SearchPath, name: str, folders: object) -> object:
        searched.append(name)
        return real(self, name, folders)  # type: ignore[arg-type]

    monkeypatch.setattr(SearchPath, "_search", counted)
    first = {name: search.find(name) for name in names}
    once = len(searched)
    again = {name: search.find(name) for name in names}
    assert first == again == fresh
    assert fresh["pkg.sub.leaf"] is not None and fresh["pkg.missing"] is None
    assert len(searched) == once  # the second round searched no folder


def _project(files: dict[str, str]) -> Project:
    facts = []
    for path, source in files.items():
        module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        facts.append(graph_facts(source.encode(), path, module, path.endswith("__init__.py")))
    return Project.from_facts(question_of(ROCM, ROCM.entry_modules), facts)


# A class re-exported through a chain of star imports and an alias, called from many modules.
TREE = {
    "app/__init__.py": "",
    "app/base.py": "class Loader:\n    def __init__(self):\n        import heavy\n",
    "app/mid.py": "from app.base import *\n",
    "app/top.py": "from app.mid import *\nfrom app.base import Loader as Renamed\n",
    **{f"app/user{i}.py": "import app.top\napp.top.Loader()\napp.top.Renamed()\n" for i in range(5)},
}


def test_a_class_named_through_re_exports_is_derived_once_per_name_and_file(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = _project(TREE)
    asked = [("app.top.Loader", "app/user0.py"), ("app.top.Renamed", "app/user1.py"), ("app.top.Nothing", "app/user2.py")]
    expected = [fresh.class_key(name, path) for name, path in asked]
    assert expected == [("app/base.py", "Loader"), ("app/base.py", "Loader"), None]
    project = _project(TREE)
    derived: list[tuple[str, str, int]] = []
    real = Project._class_key

    def counted(self: Project, qualified: str, path: str, depth: int) -> object:
        derived.append((qualified, path, depth))
        return real(self, qualified, path, depth)

    monkeypatch.setattr(Project, "_class_key", counted)
    assert [project.class_key(name, path) for name, path in asked] == expected
    once = len(derived)
    assert len(set(derived)) == once
    assert [project.class_key(name, path) for name, path in asked * 3] == expected * 3
    assert len(derived) == once  # asked again: nothing derived again
