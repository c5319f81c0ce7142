"""The module graph kept between runs: what a warm run reads, derives and trusts.

Each run here is the ROCm pass's graph over a small project, with the facts cache and the
graph's stores on disk; a counting reader shows which files a run read. Files and folders
are dated in the past, as in a checkout: a file changed in the last two seconds is never
trusted by its stat data (the racy case), which would make every run here read everything.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conftest import PAST, Project, Tick, age
from import_policy.cache.facts import FactsCache
from import_policy.cache.stat import Stat
from import_policy.cache.seal import FOLDER
from import_policy.policy.load import load
from import_policy.discovery.files import SourceFile
from import_policy.pipeline.extract import read_file
from import_policy.graph.store import ModuleGraph
from import_policy.graph.build import GraphStores, module_graph, save_graph
from import_policy.graph.plan import GraphPlan
from import_policy.pipeline.plan import Plan, Selection

# Trees here are dated an hour back (`age`): the caches' moment too, so they trust stat data.
pytestmark = pytest.mark.usefixtures("later")

POLICY = """\
version: 1
rocm_safety:
  heavy_modules: [torch]
  entry_modules: [pkg]
"""

FILES = {
    "pkg/__init__.py": "from pkg import a\n",
    "pkg/a.py": "import pkg.b\nimport pkg.d\nimport pkg.e\n",
    "pkg/b.py": "import torch\n",
    "pkg/d.py": "X = 1\n",
    "pkg/c.py": "import torch\n",  # reached by nothing
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    for relative, text in FILES.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    age(tmp_path)
    return tmp_path


def _plan(root: Path) -> GraphPlan:
    plan = Plan(load(None, root).policy, Selection()).graph
    assert plan is not None
    return plan


class Run:
    """One run of the pass's graph: what it found, read, parsed and derived."""

    def __init__(self, root: Path) -> None:
        plan = _plan(root)
        self.read: list[str] = []

        def reader(file: SourceFile) -> bytes:
            self.read.append(file.relative)
            return read_file(file)

        self.cache = FactsCache(root)
        self.stores = GraphStores(root)
        self.graph: ModuleGraph = module_graph(plan, {}, reader, self.cache, self.stores)
        self.found = sorted(
            (site.path, site.heavy, " -> ".join(chain.modules)) for chain, site in self.graph.first_reached(plan.question.entries)
        )
        save_graph(plan, self.graph, self.stores)


def cold(root: Path) -> list[tuple[str, str, str]]:
    """What the pass finds with no cache at all."""
    plan = _plan(root)
    graph = module_graph(plan, {}, read_file)
    return sorted((s.path, s.heavy, " -> ".join(c.modules)) for c, s in graph.first_reached(plan.question.entries))


def edit(root: Path, relative: str, text: str, when: int = PAST + 10**9) -> None:
    path = root / relative
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(when, when))


def test_a_warm_run_reads_parses_and_derives_nothing(tree: Path) -> None:
    first = Run(tree)
    assert first.found == [("pkg/b.py", "torch", "pkg -> pkg.a -> pkg.b -> torch")]
    assert first.graph.derived > 0 and first.cache.misses > 0
    second = Run(tree)
    assert second.found == first.found == cold(tree)
    assert second.read == [] and second.cache.hits == second.cache.misses == 0
    assert second.graph.derived == 0 and second.graph._project is None


def test_a_changed_module_is_the_only_file_read_again(tree: Path) -> None:
    Run(tree)
    edit(tree, "pkg/d.py", "import torch\n")
    run = Run(tree)
    assert run.read == ["pkg/d.py"]
    assert run.cache.misses == 1  # its record parsed again; every other one found by its known digest
    assert run.found == cold(tree) == [
        ("pkg/b.py", "torch", "pkg -> pkg.a -> pkg.b -> torch"),
        ("pkg/d.py", "torch", "pkg -> pkg.a -> pkg.d -> torch"),
    ]
    assert Run(tree).read == []  # and the run after it is warm again


def test_a_site_removed_is_gone_on_the_next_run(tree: Path) -> None:
    Run(tree)
    edit(tree, "pkg/b.py", "import os\n")
    assert Run(tree).found == cold(tree) == []


def test_a_module_that_appears_is_looked_up_again(tree: Path) -> None:
    # `import pkg.e` named no module, so it was no edge; the folder's listing changes with it.
    Run(tree)
    edit(tree, "pkg/e.py", "import torch\n")
    os.utime(tree / "pkg", ns=(PAST + 2 * 10**9, PAST + 2 * 10**9))
    run = Run(tree)
    assert ("pkg/e.py", "torch", "pkg -> pkg.a -> pkg.e -> torch") in run.found
    assert run.found == cold(tree)


def test_a_module_that_goes_away_is_no_longer_reached(tree: Path) -> None:
    Run(tree)
    (tree / "pkg" / "b.py").unlink()
    os.utime(tree / "pkg", ns=(PAST + 2 * 10**9, PAST + 2 * 10**9))
    assert Run(tree).found == cold(tree) == []


def test_a_changed_configuration_misses(tree: Path) -> None:
    Run(tree)
    (tree / "import-policy.yaml").write_text(POLICY.replace("[torch]", "[torch, pkg.d]"), encoding="utf-8")
    run = Run(tree)
    assert run.stores.index.misses == 1 and run.graph.derived > 0
    assert ("pkg/a.py", "pkg.d", "pkg -> pkg.a -> pkg.d") in run.found
    assert run.found == cold(tree)


def _entries(root: Path) -> list[Path]:
    return sorted((root / FOLDER / "module-graph").glob("*.json"))


@pytest.mark.parametrize("damage", ["flip", "truncate", "unsealed", "empty"])
def test_a_damaged_or_forged_entry_is_a_miss(tree: Path, damage: str) -> None:
    Run(tree)
    (entry,) = _entries(tree)
    data = entry.read_bytes()
    if damage == "flip":
        middle = len(data) // 2
        data = data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1:]
    elif damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "unsealed":  # what a checkout could bring: plausible JSON without our MAC
        data = b'{"mac":"' + b"0" * 64 + data[72:]
    else:
        data = b""
    entry.write_bytes(data)
    run = Run(tree)
    assert run.stores.index.misses == 1 and run.graph.derived > 0
    assert run.found == cold(tree)


def test_links_from_another_generation_are_not_used(tree: Path) -> None:
    # An index is never read with the links another run wrote. The first run's index comes
    # back over a tree whose `pkg/a.py` is as it was then, and the file read last changed:
    # its entry's reach is derived again from links, which must not be the second run's
    # (where `pkg.a` imported `pkg.d`, not `pkg.b`).
    first = Run(tree)
    index = first.stores.index.get(_settings(tree), "graph")
    assert index is not None
    edit(tree, "pkg/a.py", "import pkg.d\nimport pkg.d\n")
    second = Run(tree)  # writes links and index of a new generation
    second_index = second.stores.index.get(_settings(tree), "graph")
    assert second_index is not None and second_index.generation != index.generation
    edit(tree, "pkg/a.py", FILES["pkg/a.py"], PAST + 3 * 10**9)  # the first run's bytes again
    edit(tree, "pkg/b.py", "import torch  # edited\n", PAST + 3 * 10**9)
    first.stores.index.put(_settings(tree), "graph", index)  # the old index comes back
    run = Run(tree)
    assert run.found == cold(tree) == [("pkg/b.py", "torch", "pkg -> pkg.a -> pkg.b -> torch")]


def _settings(root: Path) -> str:
    from import_policy.graph.derive import graph_settings

    settings = graph_settings(_plan(root))
    assert settings is not None
    return settings


def test_forget_derives_again_what_came_after_the_file(tree: Path) -> None:
    Run(tree)
    run = Run(tree)
    graph = run.graph
    edit(tree, "pkg/b.py", "import os\n")
    graph.forget("pkg/b.py")
    plan = _plan(tree)
    assert sorted((s.path, s.heavy) for _, s in graph.first_reached(plan.question.entries)) == []
    assert graph.derived > 0


@pytest.mark.parametrize("text", ["import pkg.c\n", "import torch\n"], ids=["links", "sites"])
@pytest.mark.parametrize("warm", [False, True], ids=["built", "stored"])
def test_forget_drops_what_was_derived_one_observation_after_the_file(tree: Path, warm: bool, text: str) -> None:
    """pkg/d.py is the last file read: its links, its sites and the entry's reach were derived
    right after it (the log one observation longer). All depend on it, so all are derived
    again: a link to a module that reaches torch, or a site of its own."""
    run = Run(tree)
    graph = Run(tree).graph if warm else run.graph
    at = graph.inputs.log.files["pkg/d.py"][0]
    assert max(place for place, *_ in graph.inputs.log.files.values()) == at
    edit(tree, "pkg/d.py", text)
    graph.forget("pkg/d.py")
    found = sorted((s.path, s.heavy, " -> ".join(c.modules)) for c, s in graph.first_reached(_plan(tree).question.entries))
    reached = "pkg/c.py" if "pkg.c" in text else "pkg/d.py"
    assert reached in [path for path, _, _ in found]
    assert found == cold(tree)


def _touch(path: Path, seconds: int) -> None:
    os.utime(path, ns=(PAST + seconds * 10**9, PAST + seconds * 10**9))


def test_a_new_file_elsewhere_in_a_folder_derives_nothing_again(tree: Path) -> None:
    # The root's listing changes (a file added beside the packages): only the lookups of
    # top-level modules are looked at again, and they still hold.
    Run(tree)
    edit(tree, "notes.txt", "hello\n")
    _touch(tree, 5)
    run = Run(tree)
    assert run.graph.derived == 0 and run.read == []
    assert run.found == cold(tree)


def test_a_module_in_a_folder_made_after_the_lookup_is_found(tree: Path) -> None:
    # `import pkg.sub.x` named nothing: `pkg/sub` was not there. It appears (without `x`),
    # then `x.py` appears in it: each step is seen.
    edit(tree, "pkg/a.py", "import pkg.b\nimport pkg.sub.x\n")
    Run(tree)
    edit(tree, "pkg/sub/y.py", "Y = 1\n")
    _touch(tree / "pkg", 5)
    _touch(tree / "pkg" / "sub", 5)
    assert Run(tree).found == cold(tree)
    edit(tree, "pkg/sub/x.py", "import torch\n")
    _touch(tree / "pkg" / "sub", 6)
    run = Run(tree)
    assert ("pkg/sub/x.py", "torch") in [(path, heavy) for path, heavy, _ in run.found]
    assert run.found == cold(tree)


def test_a_gitignore_that_hides_a_module_is_seen(tree: Path) -> None:
    Run(tree)
    edit(tree, ".gitignore", "pkg/b.py\n")
    _touch(tree, 5)
    run = Run(tree)
    assert run.found == cold(tree) == []
    edit(tree, ".gitignore", "# nothing\n", PAST + 6 * 10**9)  # edited in place: the folder's listing stays
    run = Run(tree)
    assert run.found == cold(tree) == [("pkg/b.py", "torch", "pkg -> pkg.a -> pkg.b -> torch")]


def test_a_same_size_edit_that_keeps_the_mtime_is_seen_through_the_ctime(tree: Path) -> None:
    # Only the ctime tells this edit apart (an editor or `touch -r` restored the mtime); git
    # compares it too.
    Run(tree)
    path = tree / "pkg/b.py"
    before = path.stat()
    time.sleep(0.01)  # a ctime tick apart
    path.write_text("import torcx\n", encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    run = Run(tree)
    assert "pkg/b.py" in run.read
    assert run.found == cold(tree) == []


def test_a_file_rewritten_within_the_racy_window_is_read_again(tree: Path, one_tick: Tick) -> None:
    """On a file system whose clock has not moved (`one_tick`), a same-size edit in place
    leaves a file's stat data as it was: git's racy-clean rule (cache.racy) keeps no stat data
    for it in the log, nor renews it when its bytes confirm it, so every run hashes it."""
    Run(tree)
    assert "pkg/b.py" in Run(tree).read  # its bytes confirm it: still not trusted by its stat data
    (tree / "pkg/b.py").write_text("import torcx\n", encoding="utf-8")  # the same size, in place
    run = Run(tree)
    assert "pkg/b.py" in run.read and run.found == cold(tree) == []


def test_a_module_added_within_the_racy_window_is_found(tree: Path, one_tick: Tick) -> None:
    """A folder's stat data within the window does not stand for its listing: it is compared."""
    Run(tree)
    Run(tree)
    (tree / "pkg/e.py").write_text("import torch\n", encoding="utf-8")
    run = Run(tree)
    assert ("pkg/e.py", "torch", "pkg -> pkg.a -> pkg.e -> torch") in run.found
    assert run.found == cold(tree)


def test_a_gitignore_rewritten_within_the_racy_window_is_read_again(tree: Path, one_tick: Tick) -> None:
    ignore = tree / ".gitignore"
    ignore.write_text("pkg/x.py\n", encoding="utf-8")
    one_tick.age(tree)  # the root's listing is trusted: only the `.gitignore`'s bytes tell
    assert Run(tree).found == cold(tree) != []
    Run(tree)
    ignore.write_text("pkg/b.py\n", encoding="utf-8")  # the same size, in place: b.py ignored
    assert Run(tree).found == cold(tree) == []


def test_a_file_the_engine_read_rewritten_within_the_racy_window_is_seen(project: Project, one_tick: Tick) -> None:
    """The engine's files ("e", parsed here for `no-re`): their stat data is taken after the
    engine read them, and is neither kept nor renewed while racily clean. The hook run in
    between checks the log (the run cache is not asked) and renews what it may."""
    project.config(POLICY + "rules:\n  - id: no-re\n    forbid: [re]\n")
    for relative, text in FILES.items():
        project.write(relative, text)
    b = project.write("pkg/b.py", "import torch\nimport re\n")
    first = project.run("check", ".")
    assert "heavy-import-reachable" in first[1] and "no-re" in first[1]
    project.run("check", "pkg/b.py", "pkg/a.py")
    b.write_text("import torcx\nimport re\n", encoding="utf-8")  # the same size, in place
    warm = project.run("check", ".")
    assert warm == project.run("check", "--no-cache", ".")
    assert "heavy-import-reachable" not in warm[1] and "no-re" in warm[1]


def test_a_folder_that_becomes_a_package_shadows_the_module(tree: Path) -> None:
    # `pkg/sub/` held no `__init__.py`, so `pkg.sub` was `pkg/sub.py`; an `__init__.py` appears
    # in it (the listing of `pkg` stays as it was): Python imports the package now.
    edit(tree, "pkg/a.py", "import pkg.b\nimport pkg.sub\n")
    edit(tree, "pkg/sub.py", "X = 1\n")
    edit(tree, "pkg/sub/notes.txt", "")
    age(tree)
    assert Run(tree).found == cold(tree)
    edit(tree, "pkg/sub/__init__.py", "import torch\n")
    age(tree)
    run = Run(tree)
    assert ("pkg/sub/__init__.py", "torch", "pkg -> pkg.a -> pkg.sub -> torch") in run.found
    assert run.found == cold(tree)


def test_a_module_added_to_a_walked_package_is_reached(tree: Path) -> None:
    # A package walk imports every module of `pkg`: one that appears was never looked up by
    # name, so only the listing of the module map tells.
    edit(tree, "pkg/a.py", (
        "import importlib, pkgutil\nimport pkg\n"
        "for _, name, _ in pkgutil.iter_modules(pkg.__path__):\n    importlib.import_module(f'pkg.{name}')\n"
    ))
    age(tree)
    assert Run(tree).found == cold(tree)
    edit(tree, "pkg/new.py", "import torch\n")
    age(tree)
    run = Run(tree)
    assert ("pkg/new.py", "torch") in [(path, heavy) for path, heavy, _ in run.found]
    assert run.found == cold(tree)



def test_no_git_index_is_a_state_that_holds_from_run_to_run(tmp_path: Path) -> None:
    # Outside a git work tree there is no tracked state to change: the log must hold that as a
    # value that compares equal run after run (not as "too recent to trust"), or every warm run
    # looks its git-dependent lookups up again and rewrites the graph.
    from import_policy.graph.store import Inputs, index_of

    class Unchanged:
        looked_up: list[str] = []

        def index(self) -> object:
            return index_of(tmp_path)

        def passed(self) -> dict[str, str]:
            return {}

        def lookup(self, module: str, path: object) -> bool:
            self.looked_up.append(module)
            return True

    inputs = Inputs(tmp_path)
    inputs.asked_git("pkg.e", index_of(tmp_path))
    tree = Unchanged()
    assert inputs.check(tree) == (inputs.log.count, False)  # type: ignore[arg-type]
    assert tree.looked_up == []
