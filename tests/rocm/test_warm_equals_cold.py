"""Every warm answer is the cold answer: random edit sequences over a generated package.

Each step edits the tree (a module written, deleted, turned into a package or shadowed by
one under another root, a link made or pointed elsewhere, a `.gitignore` rule, `git add -f`,
`git rm --cached`, `git checkout`, a policy change), then dates every file and folder as it
was before (as `cp -a`, `rsync -a` or `tar` leave them; a cache that trusts an mtime alone
replays an old answer there), or leaves the new times. After each step a whole-tree run and
a hook run naming the files the step touched, both with the caches, must say exactly what
the same runs say with `--no-cache`. No step waits for the clock: times are set, not slept.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import PAST, Project, age, git


# Trees here are dated an hour back (`age`): the caches' moment too, so they trust stat data.
pytestmark = pytest.mark.usefixtures("later")

MODULES = ("pkg/__init__.py", "pkg/a.py", "pkg/b.py", "pkg/c.py", "pkg/a/__init__.py", "pkg/b/__init__.py",
           "src/pkg/__init__.py", "src/pkg/c.py", "pkg/impl.py", "pkg/d.py")
TEXTS = ("", "import torch\n", "import numpy\n", "import pkg.a\n", "from pkg import b\n", "import pkg.c\nimport pkg.b\n",
         "from . import c\n", "import pkg.impl\n", "try:\n    import pkg.a\nexcept ImportError:\n    pass\n",
         # a package walk: an edge to every module of `pkg`, whichever appear
         "import importlib, pkgutil\nimport pkg\nfor _, name, _ in pkgutil.iter_modules(pkg.__path__):\n"
         "    importlib.import_module(f'pkg.{name}')\n")
LINKS = (("pkg/c.py", "impl.py"), ("pkg/c.py", "a.py"), ("pkg/b", "a"), ("pkg/b.py", "impl.py"))
IGNORES = ("", "c.py\n", "pkg/b.py\n", "b/\n", "impl.py\n")
POLICIES = (
    "version: 1\nrocm_safety:\n  heavy_modules: [torch]\n  entry_modules: [pkg]\n",
    "version: 1\nrocm_safety:\n  heavy_modules: [torch, numpy]\n  entry_modules: [pkg]\n",
    "version: 1\nroots: ['.', src]\nrocm_safety:\n  heavy_modules: [torch]\n  entry_modules: [pkg]\n",
    "version: 1\nrocm_safety:\n  heavy_modules: [torch]\n  entry_modules: [pkg]\n"
    "rules:\n  - id: light\n    kind: import-time\n    entry: [pkg]\n    forbid: [numpy]\n",
)

steps = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(MODULES), st.sampled_from(TEXTS)),
    st.tuples(st.just("delete"), st.sampled_from(MODULES), st.just("")),
    st.tuples(st.just("link"), st.sampled_from(range(len(LINKS))), st.just("")),
    st.tuples(st.just("ignore"), st.sampled_from(IGNORES), st.just("")),
    st.tuples(st.sampled_from(("add -f", "rm --cached", "checkout")), st.sampled_from(MODULES), st.just("")),
    st.tuples(st.just("policy"), st.sampled_from(range(len(POLICIES))), st.just("")),
)


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        for inner in sorted(path.rglob("*"), key=lambda p: -len(p.parts)):
            inner.unlink() if inner.is_symlink() or not inner.is_dir() else inner.rmdir()
        path.rmdir()


def _apply(project: Project, step: tuple[str, object, str]) -> list[str]:
    """The step done to the tree; the files it touched that exist now."""
    what, target, text = step
    root = project.root
    touched: list[str] = []
    if what == "write":
        assert isinstance(target, str)
        path = root / target
        if path.parent.is_symlink() or (path.parent.exists() and not path.parent.is_dir()):
            return []
        project.write(target, text)
        touched.append(target)
    elif what == "delete":
        _remove(root / str(target))
    elif what == "link":
        assert isinstance(target, int)
        name, to = LINKS[target]
        path = root / name
        _remove(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(to)
        touched.append(name if name.endswith(".py") else f"{name}/__init__.py")
    elif what == "ignore":
        project.write(".gitignore", str(target))
    elif what == "policy":
        assert isinstance(target, int)
        project.config(POLICIES[target])
    else:
        git(root, *what.split(), "--", str(target), check=False)
        touched.append(str(target))
    return [path for path in touched if (root / path).is_file()]


def _check(project: Project, sequence: list[tuple[tuple[str, object, str], bool]]) -> None:
    project.config(POLICIES[0])
    project.write("pkg/__init__.py", "import pkg.a\n")
    project.write("pkg/a.py", "import pkg.b\n")
    project.write("pkg/b.py", "")
    project.write("pkg/impl.py", "import torch\n")
    git(project.root, "init", "-q", check=False)
    git(project.root, "add", "-A", check=False)
    git(project.root, "commit", "-qm", "start", check=False)
    age(project.root, skip=(".git", ".import_policy_cache"))
    project.run("check")  # the caches filled
    for step, restore in sequence:
        touched = _apply(project, step)
        if restore:
            age(project.root, skip=(".git", ".import_policy_cache"))
        entry = ["pkg/__init__.py"] if (project.root / "pkg" / "__init__.py").is_file() else []
        for argv in ((), tuple(sorted({*touched, *entry}))):
            warm = project.run("check", *argv)
            cold = project.run("check", "--no-cache", *argv)
            assert warm == cold, (step, argv)


def _run(capsys: pytest.CaptureFixture[str], sequence: list[tuple[tuple[str, object, str], bool]]) -> None:
    before = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        os.chdir(root)
        try:
            _check(Project(root, capsys), sequence)
        finally:
            os.chdir(before)


SEQUENCES = st.lists(st.tuples(steps, st.booleans()), min_size=1, max_size=4)
SETTINGS = {"database": None, "deadline": None,
            "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]}


@settings(max_examples=4, **SETTINGS)  # type: ignore[arg-type]
@given(sequence=SEQUENCES)
def test_warm_equals_cold_after_any_edits(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sequence: list[tuple[tuple[str, object, str], bool]],
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    _run(capsys, sequence)


@pytest.mark.slow
@settings(max_examples=60, **SETTINGS)  # type: ignore[arg-type]
@given(sequence=st.lists(st.tuples(steps, st.booleans()), min_size=1, max_size=10))
def test_warm_equals_cold_after_many_edits(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sequence: list[tuple[tuple[str, object, str], bool]],
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    _run(capsys, sequence)
