"""A named file that is missing, unreadable or not a regular file is named on stderr, the
other named files are still checked and their findings printed, the run exits 2 and never
says `All checks passed!` (ruff's E902)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Project

POLICY = "version: 1\nrules:\n  - id: no-torch\n    forbid: [torch]\n    files: [\"*.py\"]\n"


@pytest.fixture
def named(project: Project) -> Project:
    project.config(POLICY)
    project.write("a.py", "import torch\n")
    project.write("b.py", "import torch\n")
    project.write("ok.py", "import os\n")
    return project


def test_a_missing_named_file_does_not_stop_the_others(named: Project) -> None:
    code, out, err = named.run("check", "--no-cache", "a.py", "missing.py", "b.py")
    assert code == 2
    assert out.splitlines() == [
        "a.py:1:8: no-torch `torch` is forbidden",
        "b.py:1:8: no-torch `torch` is forbidden",
        "Found 2 violations (0 fixable with --fix).",
    ]
    assert err.splitlines() == ["import-policy: cannot read missing.py: No such file or directory"]


def test_an_unreadable_named_file_is_never_a_pass(named: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # Root reads a 0000 file: the refusal is simulated where the file is read.
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "a.py":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    code, out, err = named.run("check", "--no-cache", "a.py", "ok.py")
    assert (code, out) == (2, "")
    assert err.splitlines() == ["import-policy: cannot read a.py: Permission denied"]
    code, out, err = named.run("check", "--no-cache", "missing.py")
    assert (code, out) == (2, "")
    assert err.splitlines() == ["import-policy: cannot read missing.py: No such file or directory"]


def test_a_named_fifo_is_named_and_the_rest_checked(named: Project) -> None:
    import os

    os.mkfifo(named.root / "pipe.py")
    code, out, err = named.run("check", "--no-cache", "pipe.py", "a.py")
    assert code == 2 and out.splitlines()[0] == "a.py:1:8: no-torch `torch` is forbidden"
    assert err.splitlines() == ["import-policy: cannot read pipe.py: not a regular file"]


def test_diff_names_them_too(named: Project) -> None:
    code, out, err = named.run("check", "--no-cache", "--diff", "a.py", "missing.py")
    assert code == 2
    assert "import-policy: cannot read missing.py: No such file or directory" in err.splitlines()


def test_diff_prints_the_configuration_warnings(named: Project) -> None:
    named.config(POLICY + "    allow_in: [nowhere/**]\n")
    code, out, err = named.run("check", "--no-cache", "--diff")
    assert code == 0 and "nowhere/**" in err and "warning" in err, err
