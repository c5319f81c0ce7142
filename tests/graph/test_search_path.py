"""Modules found through dependencies as Python's path finder finds them (contract section 4,
"Through dependencies"): each layout is generated here, Python imports the entry in a
subprocess over the same folders, and the tool's answer must name what Python loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Project
from envlayout import Env, forbid_each, python_loads, reported
from import_policy.graph.distributions import follow, record_paths
from import_policy.graph.environment import find
from import_policy.graph.search_path import SearchPath

STANDINS = {f"h_{name}": "" for name in ("alpha", "two", "beta", "gamma", "ed", "flat", "shadow", "portion", "lib64")}
WATCHED = sorted(STANDINS)


@pytest.fixture
def layout(project: Project, monkeypatch: pytest.MonkeyPatch) -> tuple[Project, Env]:
    """Every layout at once: a regular distribution, a namespace package split between lib and
    lib64 and two distributions, one with top_level.txt only, one telling nothing but its name,
    a setuptools editable finder, a path `.pth`, a regular package in lib64 over a namespace
    portion in lib, and a name in both lib and lib64 (lib's wins)."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    env = Env(project.root)
    env.install("alpha", {"alpha/__init__.py": (
        "import h_alpha\nimport nsp.one\nimport beta\nimport gamma\nimport edpkg\nimport flatpkg\nimport shadow\n"
        "import twice\n"
    )})
    env.install("nsp-one", {"nsp/one.py": "import nsp.two\n"})
    env.install("nsp-two", {"nsp/two.py": "import h_two\n"}, site=env.lib64)
    env.install("beta", {"beta/__init__.py": "import h_beta\n"}, site=env.lib64, record=False, top_level=["beta"])
    env.install("gamma", {"gamma/__init__.py": "import h_gamma\n"}, record=False)
    # Their sources under folders that are no module of the project (`outside`), as a checkout elsewhere.
    env.editable("edpkg", {"edpkg": "outside/ed/edpkg"}, {"outside/ed/edpkg/__init__.py": "import h_ed\n"})
    env.path_pth("flatpkg", "outside/flat", {"flatpkg.py": "import h_flat\n"})
    env.install("shadow-portion", {"shadow/x.py": "import h_portion\n"})
    env.install("shadow", {"shadow/__init__.py": "import h_shadow\n"}, site=env.lib64)
    env.install("twice", {"twice.py": ""})
    env.install("twice64", {"twice.py": "import h_lib64\n"}, site=env.lib64)
    for name in STANDINS:
        project.write(f"stand/{name}.py", "")
    project.write("mypkg/__init__.py", "import alpha\n")
    project.config(forbid_each(WATCHED, "mypkg"))
    return project, env


def test_what_python_loads_through_every_layout_is_what_the_tool_reports(layout: tuple[Project, Env]) -> None:
    project, env = layout
    loaded = python_loads(env, "mypkg", [project.root], [project.root / "stand"])
    truth = {name for name in WATCHED if name in loaded}
    assert truth == {"h_alpha", "h_two", "h_beta", "h_gamma", "h_ed", "h_flat", "h_shadow"}  # the layout is what it says
    assert reported(project.lines("--no-cache"), WATCHED) == truth
    assert reported(project.lines(), WATCHED) == truth
    assert reported(project.lines(), WATCHED) == truth  # warm


def test_in_dependency_names_the_distribution_that_holds_the_sites_file(layout: tuple[Project, Env]) -> None:
    project, _ = layout
    lines = project.lines("--no-cache")
    two = [line for line in lines if " no-h-two " in line]
    assert len(two) == 1 and "(in dependency `nsp-two`, nsp/two.py:1)" in two[0], two
    ed = [line for line in lines if " no-h-ed " in line]
    assert "(in dependency `edpkg`, edpkg/__init__.py:1)" in ed[0], ed


def test_follow_reads_only_the_files_of_the_distributions_it_names(layout: tuple[Project, Env]) -> None:
    """`nsp` is one namespace package, but `nsp/two.py` belongs to nsp-two, not followed:
    its import is an edge, not read."""
    project, env = layout
    text = (project.root / "import-policy.yaml").read_text().replace("follow: all", "follow: [alpha, nsp-one]")
    project.config(text)
    assert reported(project.lines("--no-cache"), WATCHED) == {"h_alpha"}
    environment = find(project.root, str(env.prefix / "bin/python"), {})
    followed = follow(environment, ["nsp-one"], False)
    assert followed.find("nsp.one") == str(env.lib / "nsp/one.py")
    assert followed.find("nsp.two") is None  # found by the path, owned by another distribution


def test_the_search_path_is_sites_in_order_then_pth_folders(layout: tuple[Project, Env]) -> None:
    project, env = layout
    search = SearchPath([str(env.lib), str(env.lib64)])
    assert search.folders == (str(env.lib), str(project.root / "outside/flat"), str(env.lib64))
    assert search.editable["edpkg"][0] == str(project.root / "outside/ed/edpkg")
    spec = search.find("nsp")
    assert spec is not None and spec.kind == "namespace" and spec.locations == (str(env.lib / "nsp"), str(env.lib64 / "nsp"))
    shadow = search.find("shadow")
    assert shadow is not None and shadow.kind == "package" and shadow.file == str(env.lib64 / "shadow/__init__.py")
    assert search.find("shadow.x") is None  # the regular package's __path__ is lib64's folder only
    twice = search.find("twice")
    assert twice is not None and twice.file == str(env.lib / "twice.py")


def test_a_followed_distribution_none_of_whose_modules_is_found_is_an_error(project: Project) -> None:
    env = Env(project.root)
    env.install("alpha", {"alpha/__init__.py": ""})
    env.install("ghost", {"ghost/__init__.py": ""})
    (env.lib / "ghost/__init__.py").unlink()
    (env.lib / "ghost").rmdir()
    project.write("mypkg/__init__.py", "import alpha\n")
    project.config(forbid_each(["h_alpha"], "mypkg").replace("follow: all", "follow:\n  - alpha\n  - ghost"))
    code, out, err = project.run("check", "--no-cache")
    assert (code, out) == (2, "")
    assert "import-policy.yaml:6: follow: 'ghost' is installed (" in err
    assert "none of its modules (ghost) is found on the environment's path (" + str(env.lib) in err
    assert "Traceback" not in err


def test_a_dependency_file_that_does_not_parse_stops_its_chain_with_one_warning(project: Project) -> None:
    """Python raises importing `alpha.broken`: nothing of it runs (its `h_broken` is not loaded).
    The tool reads no edge from it, warns once on stderr, and reports nothing at the broken
    file: no finding, the exit code of the rest (the chain beside it still counts)."""
    env = Env(project.root)
    env.install("alpha", {
        "alpha/__init__.py": "import alpha.side\nimport alpha.broken\n",
        "alpha/side.py": "import h_side\n",
        "alpha/broken.py": "import h_broken\ndef (:\n",
    })
    project.write("mypkg/__init__.py", "import alpha\n")
    project.config(forbid_each(["h_side", "h_broken"], "mypkg"))
    for args in (("--no-cache",), (), ()):
        code, out, err = project.run("check", *args)
        assert code == 1 and reported(out.splitlines(), ["h_side", "h_broken"]) == {"h_side"}, (out, err)
        assert err.count("does not parse") == 1, err
        assert f"warning: {env.lib / 'alpha/broken.py'}:2: a followed dependency's file does not parse" in err
        assert "syntax-error" not in out
    project.write("mypkg/__init__.py", "import json\n")
    code, out, err = project.run("check", "--no-cache")
    assert (code, out) == (0, "All checks passed!\n") and "does not parse" not in err


def test_a_record_field_over_csvs_limit_never_crashes(project: Project) -> None:
    env = Env(project.root)
    info = env.install("alpha", {"alpha/__init__.py": "import h_alpha\n"})
    with (info / "RECORD").open("a") as handle:
        handle.write('"' + "x" * 200_000 + '",sha256=1,1\n"alpha/q""uoted.py",,\nbroken"row\n')
    project.write("mypkg/__init__.py", "import alpha\n")
    project.config(forbid_each(["h_alpha"], "mypkg"))
    for args in (("--no-cache",), (), ()):
        code, out, err = project.run("check", *args)
        assert code == 1 and "no-h-alpha" in out, err
    assert list(record_paths('"a,b.py",x\n"q""x.py",\nplain.py,1\n"unclosed')) == ["a,b.py", 'q"x.py', "plain.py", "unclosed"]


def test_the_run_cache_sees_a_module_added_to_a_dependency_that_record_does_not_list(project: Project) -> None:
    """The graph reads what is on disk: a module added after the install (no RECORD row) is read,
    and a warm run answers as a cold one."""
    env = Env(project.root)
    env.install("alpha", {"alpha/__init__.py": "from alpha import later\n", "alpha/other.py": ""})
    project.write("mypkg/__init__.py", "import alpha\n")
    project.config(forbid_each(["h_alpha"], "mypkg"))
    assert project.lines() == []
    (env.lib / "alpha/later.py").write_text("import h_alpha\n")
    cold = project.lines("--no-cache")
    assert reported(cold, ["h_alpha"]) == {"h_alpha"}
    assert project.lines() == cold


def test_an_in_place_upgrade_in_lib64_is_seen_by_warm_runs(project: Project, later: None) -> None:
    """A package present in both lib and lib64 (lib's is found): upgrading lib's in place
    (new files, new dist-info) changes the answer of a warm run as of a cold one."""
    env = Env(project.root)
    env.install("alpha", {"alpha/__init__.py": ""})
    env.install("alpha", {"alpha/__init__.py": "import h_alpha\n"}, site=env.lib64)
    project.write("mypkg/__init__.py", "import alpha\n")
    project.config(forbid_each(["h_alpha"], "mypkg"))
    assert project.lines() == [] and project.lines() == []
    import shutil

    shutil.rmtree(env.lib / "alpha-1.0.dist-info")
    (env.lib / "alpha/__init__.py").unlink()
    env.install("alpha", {"alpha/__init__.py": "import h_alpha\n", "alpha/extra.py": ""}, version="2.0")
    cold = project.lines("--no-cache")
    assert reported(cold, ["h_alpha"]) == {"h_alpha"} and "alpha/__init__.py:1" in cold[0]
    assert project.lines() == cold


def test_a_package_walk_inside_a_followed_dependency_finds_its_subpackages(project: Project) -> None:
    env = Env(project.root)
    env.install("alpha", {
        "alpha/__init__.py": (
            "import importlib, pkgutil\nimport alpha.plugins as plugins\n"
            "for _, name, _ in pkgutil.iter_modules(plugins.__path__):\n"
            "    importlib.import_module(f'alpha.plugins.{name}')\n"
        ),
        "alpha/plugins/__init__.py": "",
        "alpha/plugins/flat.py": "",
        "alpha/plugins/sub/__init__.py": "import h_alpha\n",
    })
    project.write("stand/h_alpha.py", "")
    project.write("mypkg/__init__.py", "import alpha\n")
    project.config(forbid_each(["h_alpha"], "mypkg"))
    assert "h_alpha" in python_loads(env, "mypkg", [project.root], [project.root / "stand"])
    assert reported(project.lines("--no-cache"), ["h_alpha"]) == {"h_alpha"}


def test_a_free_threaded_venv_is_found(tmp_path: Path) -> None:
    site = tmp_path / "ft/lib/python3.13t/site-packages"
    site.mkdir(parents=True)
    (tmp_path / "ft/pyvenv.cfg").write_text("home = /usr/bin\nversion_info = 3.13.1.final.0\n")
    found = find(tmp_path, str(tmp_path / "ft/bin/python3.13t"), {})
    assert found is not None and found.site_packages == (str(site),)
