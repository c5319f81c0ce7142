"""What the docs tell a user to copy works as given: install lines, pre-commit `rev:` pins, the LICENSE."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# `rev: <sha>`: a placeholder no one can mistake for a real revision.
PLACEHOLDER = re.compile(r"<[a-z][a-z -]*>")


def _revs() -> list[tuple[str, int, str]]:
    found = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            match = re.match(r"\s*(?:-\s+)?rev:\s*(['\"]?)([^'\"\s#]+)\1", line)
            if match:
                found.append((doc.relative_to(REPO).as_posix(), number, match.group(2)))
    return found


def test_the_docs_have_pre_commit_snippets() -> None:
    assert {path for path, _, _ in _revs()} >= {"README.md", "docs/vllm.md"}


def _git(*argv: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    return subprocess.run(["git", *argv], cwd=REPO, capture_output=True, text=True, check=False)


def _hook_ids(where: str, line: int) -> list[str]:
    """The hook ids the snippet around a `rev:` line asks for (commented-out ones included:
    a user uncomments them)."""
    lines = (REPO / where).read_text(encoding="utf-8").splitlines()
    ids = []
    for text in lines[line:]:
        if text.strip().startswith("```"):
            break
        found = re.match(r"\s*(?:#\s*)?-\s+id:\s*([\w-]+)", text)
        if found:
            ids.append(found.group(1))
    return ids


@pytest.mark.parametrize("where,line,rev", _revs(), ids=lambda value: str(value))
def test_every_rev_in_the_docs_resolves_or_is_a_placeholder(where: str, line: int, rev: str) -> None:
    shipped = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    assert _hook_ids(where, line) and set(_hook_ids(where, line)) <= shipped, f"{where}:{line}"
    text = (REPO / where).read_text(encoding="utf-8").splitlines()[line - 1]
    if PLACEHOLDER.fullmatch(rev):
        # A placeholder says what to put there, and is one only while there is nothing to pin.
        assert "# a commit sha of import-policy, or a tag you create: no release is tagged yet" in text
        assert _git("tag", "--list").stdout.strip() == "", f"{where}:{line}: a release is tagged: pin it"
        rev = _git("rev-parse", "HEAD").stdout.strip()  # what a user fills in: any commit
    resolved = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    assert resolved.returncode == 0, f"{where}:{line}: rev {rev!r} names nothing in this repository"


def test_the_docs_never_say_the_package_is_on_pypi() -> None:
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"pip install\s+(-U\s+)?['\"]?import-policy\b(?![/@])", line) and "not on PyPI" not in line:
                # the one sentence that says it does not work is allowed
                assert "finds nothing" in line, f"{doc.name}:{number}: {line.strip()}"


def test_ci_doc_says_how_to_install() -> None:
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    assert "not on PyPI yet" in text
    assert "pip install \"git+https://github.com/<org>/import-policy@<sha>\"" in text


def test_the_license_file_is_the_one_pyproject_names() -> None:
    license_ = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in license_ and "Version 2.0, January 2004" in license_
    assert "END OF TERMS AND CONDITIONS" in license_
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "Apache-2.0"}


def test_what_the_docs_say_is_syntax_checked_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The contract: a file no rule needs is not parsed, so not syntax-checked; the docs said otherwise.
    for doc in (REPO / "README.md", REPO / "docs" / "performance.md"):
        text = " ".join(doc.read_text(encoding="utf-8").split())
        assert "get CPython's own syntax check" not in text and "get CPython's syntax check" not in text, doc.name
        assert "every file gets CPython's parse" not in text, doc.name
    assert "A file no rule needs is not parsed, so not syntax-checked either" in " ".join(
        (REPO / "README.md").read_text(encoding="utf-8").split()
    )
    from import_policy.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "import-policy.yaml").write_text("rules:\n  - id: no-pickle\n    forbid: [pickle]\n", encoding="utf-8")
    (tmp_path / "broken.py").write_text("def (:\n", encoding="utf-8")
    assert main(["check", "--no-cache"]) == 0  # no rule could report in it: not parsed
    (tmp_path / "broken.py").write_text("import pickle\ndef (:\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["check", "--no-cache"]) == 1
    assert capsys.readouterr().out.startswith("broken.py:2:5: syntax-error")
