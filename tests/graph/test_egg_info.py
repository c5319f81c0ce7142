"""`follow` through distributions installed the legacy ways, described by an `.egg-info` (or an
`.egg`) instead of a `.dist-info` (contract section 4, "Through dependencies"): `pip install` of
an sdist without a wheel, `setup.py develop`, a distutils `.egg-info` file, easy_install's `.egg`
folders and zips. Each layout is generated here; Python imports the entry in a subprocess over the
same folders (and importlib.metadata finds the distributions), and the tool's answer must agree."""

from __future__ import annotations

import pytest

from conftest import Project
from envlayout import Env, forbid_each, python_loads, python_versions, reported
from import_policy.graph.distributions import follow
from import_policy.graph.environment import find

WATCHED = ["h_sdist", "h_develop", "h_distutils", "h_egg", "h_ns_one", "h_ns_two"]
NAMES = ["old-sdist", "dev-proj", "distutils_pkg", "Egg.Pkg", "ns-one"]


@pytest.fixture
def legacy(project: Project, monkeypatch: pytest.MonkeyPatch) -> tuple[Project, Env]:
    """Every legacy layout at once (the develop install's checkout in the venv's `src/`, as
    `pip install -e git+URL#egg=NAME` leaves it), beside a dist-info that shares a namespace package with an
    sdist's egg-info (whose installed-files.txt tells which file is whose)."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    env = Env(project.root, lib64=False)
    env.sdist("old-sdist", {"old_sdist/__init__.py": "import h_sdist\nfrom old_sdist import sub\n",
                            "old_sdist/sub.py": ""}, top_level=["old_sdist"])
    env.develop("dev-proj", ".venv/src/dev-proj", {"devpkg/__init__.py": "import h_develop\n"}, top_level=["devpkg"])
    env.distutils("distutils_pkg", {"distutils_pkg.py": "import h_distutils\n"})
    # An `.egg` folder's module its top_level.txt omits is still the egg's: Python imports it from there.
    env.egg("Egg.Pkg", {"eggmod/__init__.py": "import eggextra\n", "eggextra.py": "import h_egg\n"}, top_level=["eggmod"])
    env.sdist("ns-one", {"nsp/one.py": "import h_ns_one\nimport nsp.two\n"}, top_level=["nsp"])
    env.install("ns-two", {"nsp/two.py": "import h_ns_two\n"})
    for name in WATCHED:
        project.write(f"stand/{name}.py", "")
    project.write("mypkg/__init__.py", "import old_sdist\nimport devpkg\nimport distutils_pkg\nimport eggmod\nimport nsp.one\n")
    project.config(forbid_each(WATCHED, "mypkg"))
    return project, env


def test_what_python_loads_through_every_legacy_layout_is_what_the_tool_reports(legacy: tuple[Project, Env]) -> None:
    project, env = legacy
    loaded = python_loads(env, "mypkg", [project.root], [project.root / "stand"])
    truth = {name for name in WATCHED if name in loaded}
    assert truth == set(WATCHED)  # the layout is what it says
    assert all(python_versions(env, NAMES).values())  # importlib.metadata finds each one
    assert reported(project.lines("--no-cache"), WATCHED) == truth
    assert reported(project.lines(), WATCHED) == truth
    assert reported(project.lines(), WATCHED) == truth  # warm


def test_each_legacy_distribution_can_be_followed_by_name(legacy: tuple[Project, Env]) -> None:
    """No "not installed": each name importlib.metadata finds is followed, and only its files are
    read (`nsp/two.py` belongs to ns-two by the egg-info's installed-files.txt: an edge)."""
    project, _ = legacy
    text = (project.root / "import-policy.yaml").read_text()
    project.config(text.replace("follow: all", "follow: [" + ", ".join(NAMES) + "]"))
    code, out, err = project.run("check", "--no-cache")
    assert code == 1 and "not installed" not in err and "error" not in err, err
    assert reported(out.splitlines(), WATCHED) == set(WATCHED) - {"h_ns_two"}
    dev = [line for line in out.splitlines() if " no-h-develop " in line]
    assert "(in dependency `dev-proj`, devpkg/__init__.py:1)" in dev[0], dev


def test_a_followed_distribution_is_found_under_the_name_importlib_finds_it_by(legacy: tuple[Project, Env]) -> None:
    """An `-info`'s name is compared as PEP 503 normalizes it; an `.egg`'s lowercased with `-`
    as `_` only: `Egg.Pkg` and `egg.pkg` find the egg, `egg-pkg` does not."""
    project, env = legacy
    asked = ["OLD_SDIST", "old.sdist", "Dev_Proj", "distutils-pkg", "egg.pkg", "Egg.Pkg", "egg-pkg", "egg_pkg"]
    truth = python_versions(env, asked)
    environment = find(project.root, str(env.prefix / "bin/python"), {})
    followed = follow(environment, asked, False)
    assert {name for name in asked if truth[name] is None} == set(followed.missing) == {"egg-pkg", "egg_pkg"}


def test_a_develop_install_whose_modules_are_not_in_its_folder_is_an_error(project: Project) -> None:
    env = Env(project.root, lib64=False)
    env.install("alpha", {"alpha/__init__.py": ""})
    env.develop("gone", "outside/gone", {"other/__init__.py": ""}, top_level=["gone"])
    project.write("mypkg/__init__.py", "import alpha\n")
    project.config(forbid_each(["h_alpha"], "mypkg").replace("follow: all", "follow:\n  - alpha\n  - gone"))
    code, out, err = project.run("check", "--no-cache")
    assert (code, out) == (2, "")
    assert "import-policy.yaml:6: follow: 'gone' is installed (" + str(project.root / "outside/gone/gone.egg-info") in err
    assert "none of its modules (gone) is found on the environment's path (" in err
    assert "Traceback" not in err


def test_a_zipped_egg_is_found_and_said_not_read(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python imports from a zipped `.egg` (zipimport); the graph reads no archive: following it
    by name is an error at its line saying so, never "not installed" and never a silent pass."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    env = Env(project.root, lib64=False)
    env.install("alpha", {"alpha/__init__.py": ""})
    env.egg("zipped", {"zipmod/__init__.py": "import h_zip\n"}, top_level=["zipmod"], zipped=True)
    project.write("stand/h_zip.py", "")
    project.write("mypkg/__init__.py", "import zipmod\n")
    assert "h_zip" in python_loads(env, "mypkg", [project.root], [project.root / "stand"])
    assert python_versions(env, ["zipped"]) == {"zipped": "1.0"}
    project.config(forbid_each(["h_zip"], "mypkg").replace("follow: all", "follow:\n  - alpha\n  - zipped"))
    code, out, err = project.run("check", "--no-cache")
    assert (code, out) == (2, "")
    assert "import-policy.yaml:6: follow: 'zipped' is installed as a zip archive (" + str(env.lib / "zipped-1.0-py3.11.egg") in err
    assert "Traceback" not in err


def test_a_warm_run_sees_an_edit_in_a_legacy_distribution(legacy: tuple[Project, Env], later: None) -> None:
    """The run cache is keyed by what the graph read: a develop install's source file and an
    sdist's module (stat data trusted: a key that missed them would replay the first answer)."""
    project, env = legacy
    project.write("mypkg/__init__.py", "import old_sdist\nimport devpkg\n")
    first = project.lines()
    assert reported(first, WATCHED) == {"h_sdist", "h_develop"} and project.lines() == first
    (env.prefix / "src/dev-proj/devpkg/__init__.py").write_text("import h_egg\n")
    cold = project.lines("--no-cache")
    assert reported(cold, WATCHED) == {"h_sdist", "h_egg"}
    assert project.lines() == cold
    (env.lib / "old_sdist/sub.py").write_text("import h_distutils\n")
    cold = project.lines("--no-cache")
    assert reported(cold, WATCHED) == {"h_sdist", "h_egg", "h_distutils"}
    assert project.lines() == cold
