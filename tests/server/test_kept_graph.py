"""The graph the server keeps between edits gives what a graph built afresh gives (warm
equals cold), and an edit never builds a graph from nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from import_policy.server.documents import Documents, uri_of
from import_policy.server.buffers import BufferCache
from import_policy.server.lint import lint, source_file
from import_policy.server.projects import Project, Projects

POLICY = """\
version: 1
rules:
  - id: light
    kind: import-time
    entry: [pkg]
    forbid: [cv2]
rocm_safety:
  heavy_modules: [tilelang]
  entry_modules: [pkg]
"""
FILES = ["pkg/__init__.py", "pkg/a.py", "pkg/b.py", "pkg/c.py"]
# What a module may hold: nothing, a heavy import, a forbidden one, a guarded one, links on.
BODIES = [
    "", "import tilelang\n", "import cv2\n", "if False:\n    import tilelang\n",
    "from pkg import b\n", "from pkg import c\n", "import pkg.a\n", "def f():\n    import cv2\n",
    "# a comment\n", "\n\n", "x = 1  # import tilelang\n", "FLAG = False\nif FLAG:\n    import tilelang\n",
    # Names other modules read, and names nobody reads (an edit of these derives only its own module's items):
    "b = 1\n", "c = None\n", "FLAG = True\n", "FLAG = False\n", "_unread = 1\n", "_unread = 2\n", "load = 1\n",
    "from pkg.c import FLAG\nif FLAG:\n    import tilelang\n", "from pkg import FLAG\nif not FLAG:\n    import cv2\n",
    "from pkg.b import load\nload()\n", "import pkg.c\npkg.c.load()\n", "def load():\n    import tilelang\n",
    "def load():\n    if not FLAG:\n        import tilelang\n", "from typing import TYPE_CHECKING\nFLAG = TYPE_CHECKING\n",
    "from typing import TYPE_CHECKING\nFLAG = not TYPE_CHECKING\n",
    # Module-level imports and calls no other file reads by name (an edit derives only its own module's items):
    "import pkg.c as _alias\n", "import pkg.b as _alias\n_alias.load()\n", "from pkg.c import load as _load\n_load()\n",
    "import tilelang as _t\n", "from pkg.b import *\n", "import pkg.c\npkg.c.load()\n_unread = 3\n",
]


def _findings(projects: Projects, path: Path) -> list[tuple[object, ...]]:
    project = projects.for_file(path)
    assert isinstance(project, Project)
    file = source_file(project, path)
    assert file is not None
    return [(d.rule, d.line, d.column, d.message) for d in lint(project, file)]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("kept")
    (folder / "import-policy.yaml").write_text(POLICY)
    (folder / "pkg").mkdir()
    (folder / "pkg/__init__.py").write_text("from pkg import a\n")
    (folder / "pkg/a.py").write_text("from pkg import b\n")
    for name in ("b", "c"):
        (folder / f"pkg/{name}.py").write_text("")
    return folder.resolve()


@pytest.fixture(scope="module")
def warm_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`root`'s tree, where a `check` ran: the server loads the graphs it stored."""
    import os

    from import_policy.cli import main

    folder = tmp_path_factory.mktemp("warm").resolve()
    (folder / "import-policy.yaml").write_text(POLICY)
    (folder / "pkg").mkdir()
    (folder / "pkg/__init__.py").write_text("from pkg import a\n")
    (folder / "pkg/a.py").write_text("from pkg import b\n")
    for name in ("b", "c"):
        (folder / f"pkg/{name}.py").write_text("")
    before = os.getcwd()
    os.chdir(folder)
    try:
        assert main(["check", "--quiet"]) == 0
    finally:
        os.chdir(before)
    return folder


EDITS = st.lists(st.tuples(st.sampled_from(FILES), st.sampled_from(BODIES), st.sampled_from(BODIES)), min_size=1, max_size=6)


@settings(max_examples=15)  # the fast subset's share; the slow test below takes 300
@given(edits=EDITS)
def test_warm_equals_cold_after_any_edits(root: Path, edits: list[tuple[str, str, str]]) -> None:
    _warm_equals_cold(root, edits)


@settings(max_examples=10, deadline=None)
@given(edits=EDITS)
def test_warm_equals_cold_after_any_edits_from_what_check_stored(warm_root: Path, edits: list[tuple[str, str, str]]) -> None:
    """The same, the kept graphs loaded from the graphs `check` stored (its log holds the
    engine's facts for the files it checked, which the server reads itself)."""
    _warm_equals_cold(warm_root, edits)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(edits=EDITS)
def test_warm_equals_cold_after_any_edits_many(root: Path, edits: list[tuple[str, str, str]]) -> None:
    _warm_equals_cold(root, edits)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(edits=EDITS)
def test_warm_equals_cold_after_any_edits_from_what_check_stored_many(
    warm_root: Path, edits: list[tuple[str, str, str]],
) -> None:
    _warm_equals_cold(warm_root, edits)


def _cold(documents: Documents, root: Path, path: Path) -> list[tuple[object, ...]]:
    """The findings of a graph built afresh (not loaded from what `check` stored), same buffers."""
    projects = Projects(documents, root)
    project = projects.for_file(path)
    assert isinstance(project, Project)
    project.graphs.stores = None
    return _findings(projects, path)


def _warm_equals_cold(root: Path, edits: list[tuple[str, str, str]]) -> None:
    documents = Documents()
    kept = Projects(documents, root)
    for relative in FILES:  # every file open, as it is on disk
        path = root / relative
        documents.open(uri_of(path), path.read_text(), 1)
    _findings(kept, root / FILES[0])
    project = kept.for_file(root / FILES[0])
    assert isinstance(project, Project)
    built = project.graphs.built
    for version, (relative, first, second) in enumerate(edits, start=2):
        path = root / relative
        documents.open(uri_of(path), first + second, version)
        project.graphs.forget(relative)
        for other in FILES:
            warm = _findings(kept, root / other)
            cold = _cold(documents, root, root / other)
            assert warm == cold, (other, edits)
    assert project.graphs.built == built


def test_a_new_name_nothing_reads_derives_only_its_module_again(root: Path) -> None:
    documents = Documents()
    projects = Projects(documents, root)
    init, a = root / "pkg/__init__.py", root / "pkg/a.py"
    documents.open(uri_of(a), "from pkg import b\n", 1)
    (root / "pkg/b.py").write_text("import tilelang\n")
    try:
        (before,) = _findings(projects, a)
        project = projects.for_file(a)
        assert isinstance(project, Project)
        documents.open(uri_of(init), "from pkg import a\n_unread = 1\n", 2)
        project.graphs.forget("pkg/__init__.py")
        assert project.graphs.unread == 2  # the pass's graph and the import-time rule's
        assert _findings(projects, a) == [before]
        # `pkg/__init__` binding `b` makes `from pkg import b` no longer import the submodule.
        documents.open(uri_of(init), "from pkg import a\n_unread = 1\nb = 1\n", 3)
        project.graphs.forget("pkg/__init__.py")
        assert project.graphs.unread == 2
        assert _findings(projects, a) == [] == _findings(Projects(documents, root), a)
    finally:
        (root / "pkg/b.py").write_text("")


def test_a_changed_name_the_file_itself_reads_reaches_the_callers(root: Path) -> None:
    documents = Documents()
    projects = Projects(documents, root)
    a, c = root / "pkg/a.py", root / "pkg/c.py"
    body = "def load():\n    if not FLAG:\n        import tilelang\n"
    documents.open(uri_of(a), "import pkg.c\npkg.c.load()\n", 1)
    documents.open(uri_of(c), "from typing import TYPE_CHECKING\nFLAG = not TYPE_CHECKING\n" + body, 1)
    assert _findings(projects, a) == []
    project = projects.for_file(a)
    assert isinstance(project, Project)
    documents.open(uri_of(c), "from typing import TYPE_CHECKING\nFLAG = TYPE_CHECKING\n" + body, 2)  # `load` now imports tilelang: a.py's call reaches it
    project.graphs.forget("pkg/c.py")
    assert project.graphs.unread == 0
    assert _findings(projects, a) == _findings(Projects(documents, root), a) != []


def test_an_edit_that_leaves_the_record_as_it_was_derives_nothing_again(root: Path) -> None:
    documents = Documents()
    projects = Projects(documents, root)
    a = root / "pkg/a.py"
    documents.open(uri_of(a), "from pkg import b\n", 1)
    (root / "pkg/b.py").write_text("import tilelang\n")
    try:
        before = _findings(projects, a)
        project = projects.for_file(a)
        assert isinstance(project, Project)
        documents.open(uri_of(a), "from pkg import b  # the chain goes on\n", 2)
        project.graphs.forget("pkg/a.py")
        assert project.graphs.kept == 2  # the pass's graph and the import-time rule's
        assert _findings(projects, a) == before and before
        documents.open(uri_of(a), "x = 1\n", 3)
        project.graphs.forget("pkg/a.py")
        assert project.graphs.kept == 2
        assert _findings(projects, a) == []
    finally:
        (root / "pkg/b.py").write_text("")


def test_a_line_inserted_above_moves_the_findings_without_deriving_the_rest_again(root: Path) -> None:
    documents = Documents()
    projects = Projects(documents, root)
    a = root / "pkg/a.py"
    documents.open(uri_of(a), "from pkg import b\n", 1)
    (root / "pkg/b.py").write_text("import tilelang\n")
    try:
        (before,) = _findings(projects, a)
        project = projects.for_file(a)
        assert isinstance(project, Project)
        text = "import os\n\n\nfrom pkg import b\n"
        documents.open(uri_of(a), text, 2)
        project.graphs.forget("pkg/a.py")
        assert (project.graphs.moved, project.graphs.kept) == (0, 0)  # `import os` is a new fact: not a move
        _findings(projects, a)
        documents.open(uri_of(a), "\n" + text, 3)
        project.graphs.forget("pkg/a.py")
        assert project.graphs.moved == 2
        (after,) = _findings(projects, a)
        assert after[1] == ("\n" + text).splitlines().index("from pkg import b") + 1
        assert [after] == _findings(Projects(documents, root), a)
    finally:
        (root / "pkg/b.py").write_text("")


def test_records_cached_under_other_heavy_modules_are_not_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from import_policy.cli import main

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("from pkg import a\n")
    (tmp_path / "pkg/a.py").write_text("import foo_heavy\n")
    config = "version: 1\nrocm_safety:\n  heavy_modules: [{}]\n  entry_modules: [pkg]\n"
    (tmp_path / "import-policy.yaml").write_text(config.format("tilelang"))
    monkeypatch.chdir(tmp_path)
    main(["check", "pkg/__init__.py"])  # the facts cache holds pkg/a.py's record as one with nothing to parse
    (tmp_path / "import-policy.yaml").write_text(config.format("foo_heavy"))
    documents = Documents()
    init = tmp_path.resolve() / "pkg/__init__.py"
    documents.open(uri_of(init), init.read_text(), 1)
    assert [f[0] for f in _findings(Projects(documents, tmp_path.resolve()), init)] == ["heavy-import-reachable"]


def test_a_changed_name_another_file_may_read_is_derived_again_when_its_record_is_gone(root: Path) -> None:
    """Whether another file spells a changed name is read from its record; a record no
    longer kept (nor in the cache) cannot tell, so the change is derived again, never
    taken as read by nobody."""
    documents = Documents()
    projects = Projects(documents, root)
    init, a, b = root / "pkg/__init__.py", root / "pkg/a.py", root / "pkg/b.py"
    documents.open(uri_of(a), "from pkg import b\n", 1)
    documents.open(uri_of(b), "import tilelang\n", 1)
    documents.open(uri_of(init), "from pkg import a\n_unread = 1\n", 1)
    assert [f[0] for f in _findings(projects, a)] == ["heavy-import-reachable"]
    project = projects.for_file(a)
    assert isinstance(project, Project)
    cache = project.plan.cache
    assert isinstance(cache, BufferCache)
    for kept in (project.graphs.records._kept, cache._memory):  # evicted, the cache cleaned
        for key in [key for key, facts in kept.items() if facts.path in ("pkg/a.py", "pkg/b.py")]:
            del kept[key]
    # `pkg` binding `b` makes a.py's `from pkg import b` no longer import the submodule.
    documents.open(uri_of(init), "from pkg import a\n_unread = 1\nb = 1\n", 2)
    project.graphs.forget("pkg/__init__.py")
    assert project.graphs.unread == 0
    assert _findings(projects, a) == [] == _findings(Projects(documents, root), a)


def _check_cold(root: Path, relative: str, text: str, capsys: pytest.CaptureFixture[str]) -> list[tuple[object, ...]]:
    """What a cold `check` says of the file with `text` on disk (written, then put back)."""
    import json
    import os

    from import_policy.cli import main

    path = root / relative
    before, cwd = path.read_text(), os.getcwd()
    path.write_text(text)
    os.chdir(root)
    try:
        capsys.readouterr()
        main(["check", "--no-cache", "--format", "json", relative])
        found = json.loads(capsys.readouterr().out)["diagnostics"]
    finally:
        os.chdir(cwd)
        path.write_text(before)
    return sorted((d["rule"], d["line"], d["column"], d["message"]) for d in found)


def test_opening_a_file_in_a_checked_tree_loads_the_graphs_check_stored(tmp_path: Path) -> None:
    from import_policy.cli import main

    import os

    root = tmp_path.resolve()
    (root / "import-policy.yaml").write_text(POLICY)
    (root / "pkg").mkdir()
    for relative, text in {"pkg/__init__.py": "from pkg import a\n", "pkg/a.py": "from pkg import b\n", "pkg/b.py": "import tilelang\n"}.items():
        (root / relative).write_text(text)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert main(["check", "--quiet"]) == 1
    finally:
        os.chdir(cwd)
    documents = Documents()
    projects = Projects(documents, root)
    a = root / "pkg/a.py"
    documents.open(uri_of(a), a.read_text(), 1)
    assert [f[0] for f in _findings(projects, a)] == ["heavy-import-reachable"] == [f[0] for f in _cold(documents, root, a)]
    project = projects.for_file(a)
    assert isinstance(project, Project)
    assert project.graphs.built == 2
    assert all(graph.derived == 0 for _, graph in project.graphs._graphs.values())  # every item as stored


def test_a_new_import_or_call_on_the_chain_derives_only_its_module_again(
    warm_root: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """`pkg.a` is on the chain from the entry `pkg`: a module-level import or call added there
    derives again its own links and sites and the reaches, no cut of the graphs' logs; the
    findings after each edit are a cold `check`'s of the buffer's text on disk."""
    root = warm_root
    documents = Documents()
    projects = Projects(documents, root)
    a, b, c = root / "pkg/a.py", root / "pkg/b.py", root / "pkg/c.py"
    b.write_text("def load():\n    import tilelang\n")
    c.write_text("import tilelang\n")
    try:
        documents.open(uri_of(a), a.read_text(), 1)
        assert _findings(projects, a) == []
        project = projects.for_file(a)
        assert isinstance(project, Project)
        for version, text in enumerate((
            "from pkg import b\nimport pkg.c as _heavy\n",  # a new import: tilelang reached through pkg.c
            "from pkg import b\n",
            "from pkg import b\nb.load()\n",  # a new call: `load` imports tilelang when it runs
        ), start=2):
            documents.open(uri_of(a), text, version)
            project.graphs.forget("pkg/a.py")
            found = _findings(projects, a)
            assert [(rule, line, column, message) for rule, line, column, message in found] == _check_cold(root, "pkg/a.py", text, capsys)
            assert (version == 3) == (found == [])
        assert project.graphs.cut == 0 and project.graphs.unread >= 3
        assert project.graphs.built == 2
    finally:
        b.write_text("")
        c.write_text("")
