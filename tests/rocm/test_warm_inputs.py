"""What the graph kept between runs depends on, each input changed in a way its stat data or
a folder's mtime does not show: the warm run must say what `--no-cache` says.

Times are set with `os.utime`, never waited for: a file dated in the past is trusted by its
stat data (git's racy-clean rule distrusts only what changed in the last two seconds), which
is the case where a cache that watched too little would replay an old answer.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PAST, Project, age, git
from import_policy.pipeline import engine

# Trees here are dated an hour back (`age`): the caches' moment too, so they trust stat data.
pytestmark = pytest.mark.usefixtures("later")

POLICY = "version: 1\nrocm_safety:\n  heavy_modules: [torch]\n  entry_modules: [pkg]\n"


def same_as_cold(project: Project, *argv: str) -> tuple[int, str, str]:
    warm = project.run("check", *argv)
    cold = project.run("check", "--no-cache", *argv)
    assert warm == cold
    return warm


def test_an_edit_between_the_engines_read_and_the_pass_is_not_logged_as_parsed(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log holds the digest of the bytes the engine parsed, not of a second read."""
    from import_policy.cache import racy

    monkeypatch.setattr(racy, "_clock", time.time_ns)  # the edit is made during the run, after its moment
    project.config(POLICY + "rules:\n  - id: no-json\n    forbid: [json]\n")
    project.write("pkg/__init__.py", "import pkg.m\n")
    project.write("pkg/m.py", "import torch\nimport json\n")  # the engine parses it (json)
    age(project.root)
    real = engine.project_phase

    def edited_meanwhile(*args: object, **kwargs: object) -> object:
        path = project.root / "pkg" / "m.py"
        path.write_text("import json\n", encoding="utf-8")
        os.utime(path, ns=(PAST, PAST))  # as an editor's save that restores nothing would not, but a copy does
        monkeypatch.setattr(engine, "project_phase", real)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "project_phase", edited_meanwhile)
    code, out, _ = project.run("check", "pkg/m.py")
    assert "importing `pkg` imports `torch`" in out  # what the engine read
    assert same_as_cold(project, "pkg/m.py")[0] == 1  # json only: torch is gone
    assert "torch" not in same_as_cold(project, "pkg/m.py")[1]


@pytest.mark.parametrize("argv", [(), ("pkg/__init__.py",)], ids=["whole-tree", "hook"])
def test_a_module_added_with_its_folders_mtime_restored_is_seen(project: Project, argv: tuple[str, ...]) -> None:
    """`cp -a`, `rsync -a` and `tar` restore a folder's mtime after writing into it."""
    project.config(POLICY)
    project.write("pkg/__init__.py", "import pkg.extra\n")
    age(project.root)
    assert same_as_cold(project, *argv)[0] == 0
    project.write("pkg/extra.py", "import torch\n")
    age(project.root)  # every mtime as it was: only the ctimes and the listing tell
    assert same_as_cold(project, *argv)[0] == 1


@pytest.mark.parametrize("argv", [(), ("pkg/__init__.py",)], ids=["whole-tree", "hook"])
def test_an_ignored_module_git_starts_tracking_is_seen(project: Project, argv: tuple[str, ...]) -> None:
    """As in git, a `.gitignore` rule never hides a tracked file: `git add -f` makes the
    ignored module part of the project, with no file or folder of the tree changing."""
    project.config(POLICY)
    project.write(".gitignore", "extra.py\n")
    project.write("pkg/__init__.py", "import pkg.extra\n")
    project.write("pkg/extra.py", "import torch\n")
    git(project.root, "init", "-q")
    git(project.root, "add", "pkg/__init__.py")
    age(project.root)
    assert same_as_cold(project, *argv)[0] == 0
    git(project.root, "add", "-f", "pkg/extra.py")
    assert same_as_cold(project, *argv)[0] == 1
    git(project.root, "rm", "-q", "--cached", "pkg/extra.py")
    assert same_as_cold(project, *argv)[0] == 0


def _python_finds(root: Path, module: str, roots: list[str]) -> str:
    """The file Python's path finder gives for `module` with `roots` on sys.path, found
    without running any of it (a subprocess, so this process's imports stay as they are)."""
    code = (
        "import sys\nfrom importlib.machinery import PathFinder\n"
        "parts = sys.argv[1].split('.')\npath = sys.argv[2:]\n"
        "for at in range(len(parts)):\n"
        "    spec = PathFinder.find_spec('.'.join(parts[: at + 1]), path)\n"
        "    path = list(spec.submodule_search_locations or [])\n"
        "print(spec.origin)\n"
    )
    done = subprocess.run(
        ["python3", "-c", code, module, *(str(root / r) for r in roots)], capture_output=True, text=True, check=True,
    )
    return os.path.relpath(done.stdout.strip(), root).replace(os.sep, "/")


@pytest.mark.parametrize(
    ("files", "roots", "named"),
    [
        (  # a package and a module of one name: Python imports the package
            {"pkg/__init__.py": "import pkg.a\n", "pkg/a/__init__.py": "import torch\n", "pkg/a.py": ""},
            ["."], ["pkg/__init__.py", "pkg/a.py"],
        ),
        (  # the first root that holds the module wins, as on sys.path
            {"pkg/__init__.py": "import pkg.x\n", "pkg/x.py": "import torch\n", "src/pkg/__init__.py": "",
             "src/pkg/x.py": ""},
            [".", "src"], ["pkg/__init__.py", "src/pkg/x.py"],
        ),
        (  # ... whichever root is listed first
            {"src/pkg/__init__.py": "import pkg.x\n", "src/pkg/x.py": "import torch\n", "pkg/__init__.py": "",
             "pkg/x.py": ""},
            ["src", "."], ["src/pkg/__init__.py", "pkg/x.py"],
        ),
    ],
    ids=["package-over-module", "first-root", "first-root-src"],
)
def test_a_named_decoy_never_decides_what_a_module_is(
    project: Project, files: dict[str, str], roots: list[str], named: list[str]
) -> None:
    project.config(POLICY + f"roots: {roots}\n")
    for relative, text in files.items():
        project.write(relative, text)
    module = "pkg.a" if "pkg/a.py" in files else "pkg.x"
    imported = _python_finds(project.root, module, roots)
    assert files[imported] == "import torch\n"  # the fixture is what it says
    for argv in ([], named, list(reversed(named))):
        code, out, _ = same_as_cold(project, *argv)
        assert code == 1 and (f"`torch` ({imported}:1)" in out or f"{imported}:1:8: heavy" in out), (argv, out)


@pytest.mark.parametrize("linked", ["file", "folder"])
def test_a_link_inside_the_root_is_a_module_at_the_links_path(project: Project, linked: str) -> None:
    """Python imports `pkg.fast` from `pkg/fast.py` whatever it links to: its heavy import is
    reported there, in a whole-tree run and in a hook run naming the file it leads to."""
    project.config(POLICY)
    project.write("pkg/__init__.py", "import pkg.fast\n")
    if linked == "file":
        project.write("pkg/heavy_impl.py", "import torch\n")
        project.write("pkg/light.py", "")
        link, heavy, light = project.root / "pkg" / "fast.py", "heavy_impl.py", "light.py"
        site, real = "pkg/fast.py", "pkg/heavy_impl.py"
    else:
        project.write("pkg/impl/__init__.py", "import torch\n")
        project.write("pkg/light/__init__.py", "")
        link, heavy, light = project.root / "pkg" / "fast", "impl", "light"
        site, real = "pkg/fast/__init__.py", "pkg/impl/__init__.py"
    link.symlink_to(heavy)
    age(project.root)
    assert _python_finds(project.root, "pkg.fast", ["."]) == site
    for argv in ([], [real], ["pkg/__init__.py", real]):
        code, out, _ = same_as_cold(project, *argv)
        assert (code, out.splitlines()[0].split(" ")[:2]) == (1, [f"{site}:1:8:", "heavy-import-reachable"]), argv
    assert same_as_cold(project, "pkg/__init__.py")[1].startswith("pkg/__init__.py:1:1: heavy-import-reachable")
    # The link is what changes, no file nor folder mtime: the module is another file now.
    link.unlink()
    link.symlink_to(light)
    age(project.root)
    assert same_as_cold(project)[0] == 0
    assert same_as_cold(project, "pkg/__init__.py")[0] == 0
