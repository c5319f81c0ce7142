"""The ROCm pass finds a module's file by lookup, with the same answer as a walk of the tree."""

from __future__ import annotations

from pathlib import Path

from import_policy.policy.load import load
from import_policy.project.modules import ProjectModules

from conftest import Project

CONFIG = """\
version: 1
roots: [".", "src"]
exclude: [pkg/excluded/, "**/skip_me.py"]
rocm_safety:
  heavy_modules: [triton]
"""

FILES = [
    "pkg/__init__.py", "pkg/a.py", "pkg/a/__init__.py", "pkg/b/__init__.py", "pkg/b/c.py", "pkg/stub.pyi",
    "pkg/excluded/x.py", "pkg/skip_me.py", "pkg/ignored/y.py", "pkg/dropped.py", "pkg/kept_again.py",
    "src/lib/__init__.py", "src/lib/core.py", "src/top.py", "node_modules/n.py", "pkg/.venv/v.py",
    "pkg/not-ident/z.py", "scripts/run.py", "pkg/deep/er/mod.py",
]


def test_lookups_agree_with_the_walk(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / ".gitignore").write_text("pkg/ignored/\n*dropped*\n", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / ".gitignore").write_text("!kept_again.py\n", encoding="utf-8")
    for relative in FILES:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("x = 1\n", encoding="utf-8")
    policy = load(None, tmp_path).policy
    walked = dict(ProjectModules(policy, {}).items())  # iteration walks the whole tree
    assert walked == {
        "pkg": "pkg/__init__.py", "pkg.a": "pkg/a/__init__.py",  # as Python: the package wins
        "pkg.b": "pkg/b/__init__.py", "pkg.b.c": "pkg/b/c.py",
        "pkg.kept_again": "pkg/kept_again.py", "lib": "src/lib/__init__.py", "lib.core": "src/lib/core.py",
        "top": "src/top.py", "scripts.run": "scripts/run.py", "pkg.deep.er.mod": "pkg/deep/er/mod.py",
    }
    looked_up = ProjectModules(policy, {})
    names = [*walked, "pkg.stub", "pkg.excluded.x", "pkg.skip_me", "pkg.ignored.y", "pkg.dropped", "src.top",
             "src.lib", "node_modules.n", "pkg.deep", "missing", "pkg.a.b"]
    assert {name: looked_up.get(name) for name in names} == {name: walked.get(name) for name in names}


SHADOW_POLICY = """\
version: 1
rocm_safety:
  heavy_modules: [tilelang]
  entry_modules: [pkg]
"""


def test_a_package_wins_over_a_module_of_the_same_name(project: Project) -> None:
    """Python's path finder looks for `a/__init__.py` before `a.py` in each folder."""
    project.config(SHADOW_POLICY)
    project.write("pkg/__init__.py", "from pkg import a\n")
    project.write("pkg/a.py", "x = 1\n")
    project.write("pkg/a/__init__.py", "import tilelang\n")
    expected = "pkg/a/__init__.py:1:8: heavy-import-reachable"
    for argv in (["--no-cache"], ["--no-cache", "pkg/a.py", "pkg/a/__init__.py"], ["--no-cache", "pkg/a/__init__.py"]):
        code, out, _ = project.run("check", *argv)
        assert code == 1 and expected in out, (argv, out)
    code, out, _ = project.run("check", "--no-cache", "pkg/a.py")
    assert code == 0 and "All checks passed!" in out, out  # the module Python never imports has no finding
