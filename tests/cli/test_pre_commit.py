"""End to end with the real pre-commit: `pre-commit try-repo` against this repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import git
REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")]


def _pre_commit(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(cwd.parent / "pre-commit-home"), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600
    )


@pytest.fixture
def source_repo(tmp_path: Path) -> Path:
    """A committed copy of this repository, so try-repo sees exactly the working tree."""
    copy = tmp_path / "import-policy"
    shutil.copytree(
        REPO, copy,
        ignore=shutil.ignore_patterns(".git", ".venv*", "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache", "build"),
    )
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "commit", "-qm", "snapshot")
    return copy


def test_try_repo_fails_then_passes(tmp_path: Path, source_repo: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    git(user, "init", "-q")
    (user / "import-policy.yaml").write_text(
        "version: 1\nrules:\n  - id: no-pickle\n    message: use json\n    forbid: [pickle]\n"
    )
    (user / "app.py").write_text("import os, pickle\n")
    (user / "ok.py").write_text("import json\n")
    git(user, "add", "-A")

    failing = _pre_commit(user, "try-repo", str(source_repo), "import-policy", "--files", "app.py", "ok.py")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "app.py:1:12: no-pickle use json" in failing.stdout

    (user / "app.py").write_text("import os, json\n")
    git(user, "add", "-A")
    passing = _pre_commit(user, "try-repo", str(source_repo), "import-policy", "--files", "app.py", "ok.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout


def test_try_repo_blocks_a_commit_that_makes_an_entry_reach_a_hazard(tmp_path: Path, source_repo: Path) -> None:
    """The changed file is not the one holding the heavy import: it is where the chain passes."""
    user = tmp_path / "user"
    (user / "mypkg").mkdir(parents=True)
    git(user, "init", "-q")
    (user / "import-policy.yaml").write_text("version: 1\nrocm_safety:\n  heavy_modules: [xformers]\n")
    (user / "mypkg" / "__init__.py").write_text('"""mypkg."""\nimport os\n')
    (user / "mypkg" / "heavy_side.py").write_text("import xformers\n")
    git(user, "add", "-A")
    git(user, "commit", "-qm", "before")

    (user / "mypkg" / "__init__.py").write_text('"""mypkg."""\nimport os\nfrom mypkg import heavy_side\n')
    git(user, "add", "-A")
    failing = _pre_commit(user, "try-repo", str(source_repo), "import-policy", "--files", "mypkg/__init__.py")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert (
        "mypkg/__init__.py:3:1: heavy-import-reachable this import makes `mypkg` reach `xformers` "
        "(mypkg/heavy_side.py:1): mypkg -> mypkg.heavy_side -> xformers"
    ) in failing.stdout

    # The hazard moved behind a module that does not parse: the pass cannot see it, and says so
    # at that module, though the commit names only another file.
    (user / "mypkg" / "heavy_side.py").write_text("import xformers\nx = (\n")
    (user / "mypkg" / "other.py").write_text("import json\n")
    git(user, "add", "-A")
    gap = _pre_commit(user, "try-repo", str(source_repo), "import-policy", "--files", "mypkg/other.py")
    assert gap.returncode == 1, gap.stdout + gap.stderr
    assert "mypkg/heavy_side.py:2:5: syntax-error the file does not parse" in gap.stdout
    assert "mypkg -> mypkg.heavy_side" in gap.stdout


def test_try_repo_from_the_root_checks_a_project_kept_in_a_subfolder(tmp_path: Path, source_repo: Path) -> None:
    """sglang's layout: the package and its configuration in `python/`; pre-commit runs the
    hook from the repository root with `python/...` paths and no `args:`."""
    user = tmp_path / "user"
    (user / "python" / "kern").mkdir(parents=True)
    git(user, "init", "-q")
    (user / "python" / "import-policy.yaml").write_text(
        "version: 1\nrules:\n  - id: no-pickle\n    message: no pickle\n    forbid: [pickle]\n"
    )
    (user / "python" / "kern" / "__init__.py").write_text("import pickle\n")
    git(user, "add", "-A")
    failing = _pre_commit(user, "try-repo", str(source_repo), "import-policy", "--files", "python/kern/__init__.py")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "python/kern/__init__.py:1:8: no-pickle no pickle" in failing.stdout


def test_try_repo_from_the_root_of_a_monorepo(tmp_path: Path, source_repo: Path) -> None:
    """Two packages, each with its own configuration and a shared base above them."""
    user = tmp_path / "user"
    for name in ("alpha", "beta"):
        (user / "packages" / name / name).mkdir(parents=True)
    git(user, "init", "-q")
    (user / "import-policy-base.yaml").write_text(
        "version: 1\nrules:\n  - id: no-pickle\n    message: no pickle\n    forbid: [pickle]\n"
    )
    (user / "packages" / "alpha" / "import-policy.yaml").write_text("version: 1\nextends: [../../import-policy-base.yaml]\n")
    (user / "packages" / "beta" / "import-policy.yaml").write_text(
        "version: 1\nrules:\n  - id: no-marshal\n    message: no marshal\n    forbid: [marshal]\n"
    )
    (user / "packages" / "alpha" / "alpha" / "__init__.py").write_text("import pickle\nimport marshal\n")
    (user / "packages" / "beta" / "beta" / "__init__.py").write_text("import pickle\nimport marshal\n")
    git(user, "add", "-A")
    failing = _pre_commit(user, "try-repo", str(source_repo), "import-policy", "--all-files")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "packages/alpha/alpha/__init__.py:1:8: no-pickle no pickle" in failing.stdout
    assert "packages/beta/beta/__init__.py:2:8: no-marshal no marshal" in failing.stdout
    assert "alpha/__init__.py:2:8" not in failing.stdout and "beta/__init__.py:1:8" not in failing.stdout


def test_try_repo_runs_on_a_commit_that_changes_only_the_configuration(tmp_path: Path, source_repo: Path) -> None:
    """The hooks match configuration files too: a broken policy fails the commit that breaks
    it, not the next one (someone else's)."""
    user = tmp_path / "user"
    user.mkdir()
    git(user, "init", "-q")
    (user / "import-policy.yaml").write_text("version: 1\nextends: [base.yaml]\n")
    (user / "base.yaml").write_text("version: 1\nrules:\n  - id: no-pickle\n    forbd: [pickle]\n")
    (user / "app.py").write_text("import os\n")
    git(user, "add", "-A")
    for named in (["base.yaml"], ["import-policy.yaml"]):
        failing = _pre_commit(user, "try-repo", str(source_repo), "import-policy", "--files", *named)
        assert failing.returncode == 1, failing.stdout + failing.stderr
        assert "base.yaml:4: unknown key 'forbd'" in failing.stdout, failing.stdout
    (user / "base.yaml").write_text("version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n")
    git(user, "add", "-A")
    passing = _pre_commit(user, "try-repo", str(source_repo), "import-policy", "--files", "base.yaml")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout
