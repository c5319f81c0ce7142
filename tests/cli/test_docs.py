"""What the docs tell a user to copy works as given: install lines, pre-commit `rev:` pins, the LICENSE."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.mark.parametrize("where,line,rev", _revs(), ids=lambda value: str(value))
def test_every_rev_in_the_docs_resolves_or_is_a_placeholder(where: str, line: int, rev: str) -> None:
    if PLACEHOLDER.fullmatch(rev):
        return
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    resolved = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], cwd=REPO, capture_output=True
    )
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
