"""A link inside the project root is a module at the link's path (contract section 4): Python
imports `pkg.fast` from `pkg/fast.py -> impl.py`, so every rule judges that path under its own
globs and module name, as it judges any file."""

from __future__ import annotations

from pathlib import Path

import pytest

from import_policy.cli import main
from import_policy.discovery.files import MANY_PATHS, MAX_PATHS_TO_A_FOLDER, discover

POLICY = """\
version: 1
rules:
  - id: no-pickle
    forbid: [pickle]
    files: {files}
    allow_in: {allow_in}
  - id: no-re
    forbid: [re]
    fix: {{replace_module: regex}}
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: str = '["**"]', allow_in: str = "[]") -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "import-policy.yaml").write_text(POLICY.format(files=files, allow_in=allow_in), encoding="utf-8")
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_COLOR", "1")
    return root


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_link_under_files_reports_at_the_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, monkeypatch, files='["pkg/**"]')
    (root / "impl").mkdir()
    (root / "impl" / "heavy.py").write_text("import pickle\n", encoding="utf-8")
    (root / "pkg" / "fast.py").symlink_to("../impl/heavy.py")
    expected = (1, "pkg/fast.py:1:8: no-pickle `pickle` is forbidden\nFound 1 violation (0 fixable with --fix).\n", "")
    assert _run(capsys, "check", "--no-cache", ".") == expected
    assert _run(capsys, "check", ".") == expected
    assert _run(capsys, "check", ".") == expected  # warm: the run and walk caches say the same
    assert _run(capsys, "check", "pkg/fast.py") == expected  # named as pre-commit names it
    assert _run(capsys, "check", "impl/heavy.py") == (0, "All checks passed!\n", "")
    (root / "impl" / "heavy.py").write_text("import os\n", encoding="utf-8")  # an edit seen through the link
    assert _run(capsys, "check", ".") == (0, "All checks passed!\n", "")
    (root / "pkg" / "fast.py").unlink()
    (root / "impl" / "other.py").write_text("import pickle\n", encoding="utf-8")
    (root / "pkg" / "fast.py").symlink_to("../impl/other.py")  # retargeted
    assert _run(capsys, "check", ".") == expected


def test_a_link_outside_allow_in_reports_and_its_target_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, monkeypatch, allow_in='["pkg/compat/**"]')
    (root / "pkg" / "compat").mkdir()
    (root / "pkg" / "compat" / "pickling.py").write_text("import pickle\n", encoding="utf-8")
    (root / "pkg" / "fast.py").symlink_to("compat/pickling.py")
    expected = (1, "pkg/fast.py:1:8: no-pickle `pickle` is forbidden\nFound 1 violation (0 fixable with --fix).\n", "")
    assert _run(capsys, "check", "--no-cache", ".") == expected
    assert _run(capsys, "check", ".") == expected
    assert _run(capsys, "check", "--format", "json", ".")[0] == 1


def test_a_linked_folder_holds_modules_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, monkeypatch, files='["fast/**"]')
    (root / "pkg" / "m.py").write_text("import pickle\n", encoding="utf-8")
    (root / "fast").symlink_to("pkg")
    (root / "pkg" / "loop").symlink_to("..")  # a loop is not followed
    expected = (1, "fast/m.py:1:8: no-pickle `pickle` is forbidden\nFound 1 violation (0 fixable with --fix).\n", "")
    assert _run(capsys, "check", "--no-cache", ".") == expected
    assert _run(capsys, "check", ".") == expected
    assert _run(capsys, "check", "fast") == expected


def test_a_fix_through_two_paths_writes_once_and_keeps_the_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, monkeypatch)
    (root / "pkg" / "a.py").write_text("import re\n", encoding="utf-8")
    (root / "pkg" / "b.py").symlink_to("a.py")
    code, out, _ = _run(capsys, "check", "--diff", ".")
    # One change, shown once, under the path without a link.
    assert (code, out.count("@@ "), "--- a/pkg/a.py" in out, "pkg/b.py" in out) == (1, 1, True, False)
    assert _run(capsys, "check", "--fix", ".") == (0, "Found 2 violations (2 fixed, 0 remaining).\n", "")
    assert (root / "pkg" / "a.py").read_text(encoding="utf-8") == "import regex as re\n"
    assert (root / "pkg" / "b.py").is_symlink()


def test_fixes_that_differ_between_two_paths_fix_neither(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "import-policy.yaml").write_text(
        "version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n    files: [pkg/a.py]\n    fix: {replace_module: regex}\n"
        "  - id: no-re-b\n    forbid: [re]\n    files: [pkg/b.py]\n    fix: {replace_module: regex2}\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_COLOR", "1")
    (root / "pkg" / "a.py").write_text("import re\n", encoding="utf-8")
    (root / "pkg" / "b.py").symlink_to("a.py")
    code, out, _ = _run(capsys, "check", "--fix", ".")
    assert code == 1
    assert out.count("fix not applied: the file is also pkg/") == 2 and "[*]" not in out  # no later --fix applies them
    assert (root / "pkg" / "a.py").read_text(encoding="utf-8") == "import re\n"



def test_links_that_double_the_paths_at_each_level_stay_bounded(tmp_path: Path) -> None:
    # d0/x -> d1, d0/y -> d1, d1/x -> d2, ...: 2**20 paths to d20 without a bound.
    for level in range(21):
        (tmp_path / f"d{level}").mkdir()
        (tmp_path / f"d{level}" / "m.py").write_text("", encoding="utf-8")
        if level:
            for name in ("x", "y"):
                (tmp_path / f"d{level - 1}" / name).symlink_to(f"../d{level}")
    skipped: list[tuple[str, str]] = []
    files = discover([tmp_path / "d0"], tmp_path, (), skipped=skipped)
    assert len(files) <= 21 * MAX_PATHS_TO_A_FOLDER
    assert "d0/x/x/x/x/m.py" in {file.relative for file in files}  # 16 paths to d4: all walked
    assert len(skipped) == 21 - 5 and {why for _, why in skipped} == {MANY_PATHS}  # once per folder


@pytest.mark.parametrize("linked", ["file", "folder"])
def test_a_hook_run_naming_only_a_link_s_target_reports_at_the_link_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], linked: str,
) -> None:
    """pre-commit names the file changed, the link's target: every rule reports at the link's
    path too (a module of its own, where Python imports it), as a whole-tree run does."""
    import subprocess

    root = _project(tmp_path, monkeypatch)
    (root / "impl").mkdir()
    (root / "impl" / "heavy.py").write_text("import pickle\n", encoding="utf-8")
    if linked == "file":
        (root / "pkg" / "fast.py").symlink_to("../impl/heavy.py")
        link = "pkg/fast.py"
    else:
        (root / "alias").symlink_to("impl")
        link = "alias/heavy.py"
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    expected = sorted(["impl/heavy.py:1:8: no-pickle `pickle` is forbidden", f"{link}:1:8: no-pickle `pickle` is forbidden"])
    for argv in (["--no-cache"], ["--no-cache", "impl/heavy.py"], ["impl/heavy.py"], [], ["impl/heavy.py"]):
        code, out, _ = _run(capsys, "check", *argv)
        assert (code, out.splitlines()[:-1]) == (1, expected), argv
