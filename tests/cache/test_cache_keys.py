"""Every input a cache is keyed by, changed alone: the warm run must say what `--no-cache` says.

One scenario per key field of each cache (facts, whole-tree results, folder listings, the
policy index): a first run fills the caches, one input changes, and the next run (caches
on) is compared with a run that reads everything afresh. A field left out of a key makes the
warm run answer from a stale entry, and its scenario fails. Fields that cannot change alone
through the command line (the tool's version, the entry format, a file's package flag, which
follows from its path) are held by the key functions' own tests below.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import Project
from import_policy.cache import facts as facts_cache
from import_policy.cache import policy as policy_cache
from import_policy.cache import run as run_cache
from import_policy.cache import walk as walk_cache
from import_policy.discovery.files import SourceFile


@dataclass(frozen=True)
class Scenario:
    files: dict[str, str]
    change: Callable[[Project], object]
    argv: tuple[str, ...] = ()
    cwd: str = "."
    argv_after: tuple[str, ...] | None = None  # the flags after the change (default: the same)
    cwd_after: str | None = None


def _write(relative: str, text: str) -> Callable[[Project], object]:
    return lambda project: project.write(relative, text)


def _config(text: str) -> Callable[[Project], object]:
    return _write("import-policy.yaml", text)


RE = "version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n"
TORCH = "version: 1\nrules:\n  - id: no-torch\n    forbid: [torch]\n"
SYNC = "version: 1\nrules:\n  - id: sync\n    forbid: [torch.cuda.synchronize]\n"
SYNC_AND_EMPTY = "version: 1\nrules:\n  - id: sync\n    forbid: [torch.cuda.synchronize, torch.cuda.empty_cache]\n"
USES = "import torch\ntorch.cuda.synchronize()\ntorch.cuda.empty_cache()\n"
RELATIVE = "version: 1\nroots: [{roots}]\nrules:\n  - id: no-y\n    forbid: [pkg.y]\n"
IMPORT_TIME = (
    "version: 1\nrules:\n  - id: light\n    kind: import-time\n    entry: [pkg]\n    forbid: [{forbid}]\n"
)
RELATIVE_FIX = "version: 1\nroots: ['.', src]\nrules:\n  - id: rel\n    kind: relative-imports\n    ban: parents\n"
ROCM = "version: 1\nrocm_safety:\n  heavy_modules: [tilelang]\n  entry_modules: [pkg]\n"

SCENARIOS: dict[str, Scenario] = {
    # facts cache: bytes, path, module, mode (what was extracted, and for which use gate)
    "facts/source": Scenario({"import-policy.yaml": RE, "a.py": "import os\n"}, _write("a.py", "import re\n"), ("a.py",)),
    "facts/path": Scenario(  # the same bytes and module under another root: only the path differs
        {"import-policy.yaml": "version: 1\nroots: ['.', src]\n" + RE[len("version: 1\n"):], "pkg/a.py": "import re\n"},
        _write("src/pkg/a.py", "import re\n"), ("pkg/a.py",), argv_after=("src/pkg/a.py",),
    ),
    "facts/module": Scenario(
        {"import-policy.yaml": RELATIVE.format(roots="'.'"), "src/pkg/__init__.py": "", "src/pkg/x.py": "from . import y\n"},
        _config(RELATIVE.format(roots="'.', src")), ("src/pkg/x.py",),
    ),
    "facts/mode": Scenario({"import-policy.yaml": TORCH, "a.py": USES}, _config(SYNC), ("a.py",)),
    "facts/mode-use-gate": Scenario({"import-policy.yaml": SYNC, "a.py": USES}, _config(SYNC_AND_EMPTY), ("a.py",)),
    "facts/graph-mode": Scenario(
        {"import-policy.yaml": ROCM, "pkg/__init__.py": "import pkg.m\n", "pkg/m.py": "import lib\nlib.load()\n"},
        lambda project: (project.write("lib/__init__.py", "def load():\n    import tilelang\n")),
    ),
    # the pass's record of a file its prefilter turned down: keyed by what the prefilter asks
    "facts/graph-skip-heavy": Scenario(
        {"import-policy.yaml": ROCM, "pkg/__init__.py": "import pkg.m\n", "pkg/m.py": "import xformers\n"},
        _config(ROCM.replace("[tilelang]", "[tilelang, xformers]")),
    ),
    "facts/graph-skip-import-time": Scenario(
        {"import-policy.yaml": IMPORT_TIME.format(forbid="cv2"), "pkg/__init__.py": "import pkg.m\n",
         "pkg/m.py": "import xformers\n"},
        _config(IMPORT_TIME.format(forbid="cv2, xformers")),
    ),
    # whole-tree results: the policy, the selection, the files the walk found (and their bytes)
    "run/policy": Scenario({"import-policy.yaml": RE, "a.py": "import re\nimport torch\n"}, _config(TORCH)),
    "run/extended-file": Scenario(
        {"import-policy.yaml": "version: 1\nextends: [base.yaml]\n", "base.yaml": RE, "a.py": "import re\nimport torch\n"},
        _write("base.yaml", TORCH),
    ),
    "run/selection": Scenario({"import-policy.yaml": RE + "  - id: no-os\n    forbid: [os]\n", "a.py": "import re, os\n"},
                              lambda project: None, argv_after=("--select", "no-os")),
    "run/files": Scenario({"import-policy.yaml": RE, "a.py": "import os\n"}, _write("b.py", "import re\n")),
    "run/layout": Scenario(  # an empty folder under a root makes `pkg` ambiguous: the fix is unsafe
        {"import-policy.yaml": RELATIVE_FIX, "src/other.py": "", "pkg/__init__.py": "", "pkg/a/__init__.py": "",
         "pkg/a/x.py": "from .. import y\n", "pkg/y.py": ""},
        lambda project: (project.root / "src" / "pkg").mkdir(),
    ),
    "run/bytes": Scenario({"import-policy.yaml": RE, "a.py": "import os\n"}, _write("a.py", "import re\n")),
    # folder listings: exclude, a folder's entries, a .gitignore
    "walk/exclude": Scenario({"import-policy.yaml": RE + "exclude: ['b.py']\n", "a.py": "", "b.py": "import re\n"}, _config(RE)),
    "walk/entries": Scenario({"import-policy.yaml": RE, "pkg/a.py": ""}, _write("pkg/b.py", "import re\n")),
    "walk/gitignore": Scenario({"import-policy.yaml": RE, ".gitignore": "b.py\n", "a.py": "", "b.py": "import re\n"},
                               _write(".gitignore", "c.py\n")),
    # the policy index: the top configuration's bytes, the folder run from, whether src/ exists
    "policy/top-config": Scenario({"import-policy.yaml": RE, "a.py": "import torch\n"}, _config(TORCH)),
    "policy/cwd": Scenario(
        {"import-policy.yaml": RE + "    files: ['sub/**']\n", "sub/a.py": "import re\n", "a.py": "import re\n"},
        lambda project: None, cwd="sub", cwd_after=".",
    ),
    "policy/src-folder": Scenario(
        {"import-policy.yaml": RELATIVE.format(roots="'.', src").replace("roots: ['.', src]\n", ""),
         "src/pkg/__init__.py": "", "src/pkg/x.py": "from . import y\n"},
        lambda project: os.rename(project.root / "src", project.root / "lib"),
    ),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_one_changed_input_gives_what_no_cache_gives(project: Project, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = SCENARIOS[name]
    for relative, text in scenario.files.items():
        project.write(relative, text)
    monkeypatch.chdir(project.root / scenario.cwd)
    first = project.run("check", *scenario.argv)
    project.run("check", *scenario.argv)  # warm: every cache filled and used
    scenario.change(project)
    if scenario.cwd_after is not None:
        monkeypatch.chdir(project.root / scenario.cwd_after)
    argv = scenario.argv if scenario.argv_after is None else scenario.argv_after
    warm = project.run("check", *argv)
    fresh = project.run("check", "--no-cache", *argv)
    assert warm == fresh, (name, first)
    assert warm != first, "the change must change the result, or nothing is tested"


# -- the key functions, one field at a time --------------------------------------------------


def test_the_facts_key_changes_with_each_field(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = facts_cache.FactsCache.__new__(facts_cache.FactsCache)
    base = (b"import re\n", "pkg/a.py", "pkg.a", False, "facts")
    keys = {cache.key(*base)}
    for index, other in enumerate((b"import os\n", "pkg/b.py", "pkg.b", True, "uses:x")):
        changed = list(base)
        changed[index] = other
        keys.add(cache.key(*changed))  # type: ignore[arg-type]
    monkeypatch.setattr(facts_cache, "__version__", "0.0.0-other")
    keys.add(cache.key(*base))
    monkeypatch.setattr(facts_cache, "_FORMAT", -1)
    keys.add(cache.key(*base))
    assert len(keys) == 8


def test_the_run_key_changes_with_each_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [SourceFile(tmp_path / "a.py", "a.py", "python")]
    key = run_cache.RunCache.key
    keys = {
        key("p", ("select",), files), key("q", ("select",), files), key("p", ("other",), files),
        key("p", ("select",), [*files, SourceFile(tmp_path / "b.py", "b.py", "python")]),
        key("p", ("select",), [SourceFile(tmp_path / "a.py", "a.py", "c")]),
    }
    monkeypatch.setattr(run_cache, "__version__", "0.0.0-other")
    keys.add(key("p", ("select",), files))
    monkeypatch.setattr(run_cache, "_FORMAT", -1)
    keys.add(key("p", ("select",), files))
    monkeypatch.setattr(run_cache, "EXTRACTION", -1)  # extractors that moved on never replay an old run
    keys.add(key("p", ("select",), files))
    assert None not in keys and len(keys) == 8


def test_the_graph_store_key_changes_with_the_extraction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from import_policy.cache import store
    from import_policy.graph.codec import GraphCodec

    stored = store.Store(tmp_path, GraphCodec())
    before = stored.key("settings", "graph")
    monkeypatch.setattr(store, "EXTRACTION", -1)
    assert stored.key("settings", "graph") != before


def test_the_policy_key_changes_with_each_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = policy_cache.entry_key
    base = ("import-policy.yaml", "d1", tmp_path, tmp_path)
    keys = {key(*base), key("other.yaml", "d1", tmp_path, tmp_path), key("import-policy.yaml", "d2", tmp_path, tmp_path),
            key("import-policy.yaml", "d1", tmp_path / "sub", tmp_path)}
    (tmp_path / "src").mkdir()
    keys.add(key(*base))
    monkeypatch.setattr(policy_cache, "__version__", "0.0.0-other")
    keys.add(key(*base))
    monkeypatch.setattr(policy_cache, "_FORMAT", -1)
    keys.add(key(*base))
    assert len(keys) == 7


def test_the_walk_cache_file_changes_with_its_setting_and_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = {walk_cache.WalkCache(tmp_path, "a").file, walk_cache.WalkCache(tmp_path, "b").file}
    monkeypatch.setattr(walk_cache, "__version__", "0.0.0-other")
    names.add(walk_cache.WalkCache(tmp_path, "a").file)
    monkeypatch.setattr(walk_cache, "_FORMAT", -1)
    names.add(walk_cache.WalkCache(tmp_path, "a").file)
    assert len(names) == 4


def test_every_parse_is_keyed_by_the_interpreter_and_the_parser() -> None:
    """A 3.11 run's `syntax-error` for `type X = int` is no answer for 3.12: the facts, run and
    graph keys all digest EXTRACTION (held above), which names both parsers' releases."""
    import importlib.metadata
    import platform
    import sys

    from import_policy.facts import EXTRACTION

    assert f"{platform.python_implementation()}-{sys.version_info.major}.{sys.version_info.minor}." in EXTRACTION
    assert f".{sys.version_info.micro}-" in EXTRACTION
    assert f"libcst-{importlib.metadata.version('libcst')}" in EXTRACTION
    assert facts_cache._FORMAT == EXTRACTION


def test_a_cache_written_by_another_interpreter_is_not_read(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same tree and caches, checked under an EXTRACTION that differs as another Python's
    does: every cache misses (a planted answer in each is never replayed)."""
    from import_policy.cache import store

    project.write("import-policy.yaml", ROCM + RE[len("version: 1\n"):])
    project.write("pkg/__init__.py", "import pkg.m\n")
    project.write("pkg/m.py", "import tilelang\nimport re\n")
    first = project.run("check")
    assert first[0] == 1
    for module in (facts_cache, run_cache, store):
        monkeypatch.setattr(module, "EXTRACTION" if module is not facts_cache else "_FORMAT", "another-python")
    misses = facts_cache.FactsCache.get

    def counted(self: facts_cache.FactsCache, key: str) -> object:
        found = misses(self, key)
        assert found is None, "an entry another interpreter wrote was read"
        return found

    monkeypatch.setattr(facts_cache.FactsCache, "get", counted)
    assert project.run("check") == first


def test_the_graph_store_key_changes_with_the_codec(tmp_path: Path) -> None:
    from import_policy.cache import store
    from import_policy.graph.codec import GraphCodec

    codec = GraphCodec()
    before = store.Store(tmp_path, codec).key("settings", "graph")
    codec.version = GraphCodec.version + 1  # a codec that reads another shape
    assert store.Store(tmp_path, codec).key("settings", "graph") != before


def test_an_entry_moved_under_another_key_is_a_miss(tmp_path: Path) -> None:
    """Sealed under the user's own key and verifying, but written for another key (another
    file's bytes, another setting): a copy of it under the other key's name is never read."""
    from import_policy.cache import store
    from import_policy.facts.records.model import FileFacts
    from import_policy.graph.codec import GraphCodec, Stored

    facts = facts_cache.FactsCache(tmp_path)
    one, other = facts.key(b"a", "a.py", "a", False, "facts"), facts.key(b"b", "b.py", "b", False, "facts")
    facts.put(one, FileFacts("a.py", "a", False))
    assert facts.get(one) is not None
    facts._entry(other).parent.mkdir(parents=True, exist_ok=True)
    facts._entry(other).write_bytes(facts._entry(one).read_bytes())
    assert facts.get(other) is None

    graphs = store.Store(tmp_path, GraphCodec())
    graphs.put("settings-one", "graph", Stored(generation="g"))
    assert graphs.get("settings-one", "graph") is not None
    moved = graphs._entry(graphs.key("settings-two", "graph"))
    moved.write_bytes(graphs._entry(graphs.key("settings-one", "graph")).read_bytes())
    assert graphs.get("settings-two", "graph") is None


def test_stat_data_holds_the_inode() -> None:
    """A file replaced by another (a checkout, `mv`) is another inode: with the same size and
    times it is still another file."""
    from import_policy.cache.stat import stat_of

    here = Path(__file__)
    now = os.stat(here)
    assert stat_of(here) == (now.st_mtime_ns, now.st_ctime_ns, now.st_size, now.st_ino)
