"""A file name can never forge an output line, a terminal sequence or a workflow command: paths
are quoted as git quotes them in every output and on stderr, and SARIF URIs are
percent-encoded."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import urllib.parse
from pathlib import Path

import pytest

from conftest import Project
from import_policy.quoting import escape_controls, quote_path

from test_formats import SCHEMA

INJECTED = "h\n::error::INJECTED\n.py"
POLICY = "version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n"

ASCII_CASES = [
    "plain/m.py",
    "with space.py",
    INJECTED,
    "cr\rname.py",
    "esc\x1b[31mred.py",
    "tab\there.py",
    "bell\a\b\v\f.py",
    'quote"d.py',
    "back\\slash.py",
    "del\x7f.py",
    "nul-free\x01\x02\x1f.py",
]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("name", ASCII_CASES + ["é-non-ascii.py", "naïve dir/ü.py"])
def test_paths_are_quoted_as_git_quotes_them(tmp_path: Path, name: str) -> None:
    repo = tmp_path / "repo"
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text("", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "--", name], check=True)
    listed = subprocess.run(
        ["git", "-C", str(repo), "-c", "core.quotePath=false", "ls-files"], check=True, capture_output=True,
    ).stdout.decode("utf-8").rstrip("\n")
    assert quote_path(name) == listed


def test_c1_controls_and_undecodable_bytes_are_quoted_too() -> None:
    # git lets bytes above 0x7f through with quotePath=false; U+009B is CSI to some terminals.
    assert quote_path("csi\x9b31m.py") == '"csi\\302\\23331m.py"'
    assert quote_path("nel\x85.py") == '"nel\\302\\205.py"'
    assert quote_path(os.fsdecode(b"bad\xff.py")) == '"bad\\377.py"'
    assert escape_controls("a\nb\x1b[0m") == "a\\nb\\033[0m"
    assert escape_controls('keeps "quotes" and \\') == 'keeps "quotes" and \\'


@pytest.fixture
def hostile(project: Project) -> Project:
    project.config(POLICY)
    for name in (INJECTED, "esc\x1b[2Jx.py", "e #frag?q%.py"):
        project.write(name, "import pickle\n")
    return project


def _one_line_each(out: str, count: int) -> list[str]:
    lines = out.splitlines()
    assert not any(line.startswith("::error::INJECTED") or "\x1b" in line for line in lines)
    assert len(lines) == count
    return lines


def test_text_output_quotes_paths(hostile: Project) -> None:
    code, out, err = hostile.run("check", ".")
    assert code == 1 and err == ""
    assert _one_line_each(out, 4) == [
        'e #frag?q%.py:1:8: no-pickle `pickle` is forbidden',
        '"esc\\033[2Jx.py":1:8: no-pickle `pickle` is forbidden',
        '"h\\n::error::INJECTED\\n.py":1:8: no-pickle `pickle` is forbidden',
        "Found 3 violations (0 fixable with --fix).",
    ]


def test_github_output_never_forges_a_command(hostile: Project) -> None:
    code, out, _ = hostile.run("check", "--format", "github")
    assert code == 1
    lines = _one_line_each(out, 3)
    assert lines[2].startswith('::error file="h\\n%3A%3Aerror%3A%3AINJECTED\\n.py",line=1,')
    assert all(line.startswith("::error file=") for line in lines)


def test_json_keeps_the_real_path_escaped(hostile: Project) -> None:
    code, out, _ = hostile.run("check", "--format", "json")
    assert code == 1
    assert "\x1b" not in out and out.count("\n") == len(out.splitlines())
    paths = [d["path"] for d in json.loads(out)["diagnostics"]]
    assert paths == ["e #frag?q%.py", "esc\x1b[2Jx.py", INJECTED]  # a consumer opens the file by it


def test_sarif_uris_are_percent_encoded_and_valid(hostile: Project) -> None:
    import jsonschema

    code, out, _ = hostile.run("check", "--format", "sarif")
    assert code == 1
    document = json.loads(out)
    checker = jsonschema.FormatChecker()
    assert not checker.conforms("e #frag?q.py", "uri-reference")  # the format is really checked
    jsonschema.validate(document, json.loads(SCHEMA.read_text(encoding="utf-8")), format_checker=checker)
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in document["runs"][0]["results"]]
    assert uris == ["e%20%23frag%3Fq%25.py", "esc%1B%5B2Jx.py", "h%0A%3A%3Aerror%3A%3AINJECTED%0A.py"]
    assert [urllib.parse.unquote(uri) for uri in uris] == ["e #frag?q%.py", "esc\x1b[2Jx.py", INJECTED]
    assert all(checker.conforms(uri, "uri-reference") for uri in uris)


def test_stderr_quotes_paths(project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    project.config(POLICY)
    outside = tmp_path_factory.mktemp("outside") / "m.py"
    outside.write_text("import pickle\n", encoding="utf-8")
    (project.root / INJECTED).symlink_to(outside)  # a link out of the root: skipped, and said so
    project.write("ok.py", "import os\n")
    code, out, err = project.run("check", ".")
    assert (code, out) == (0, "All checks passed!\n")
    assert err.splitlines() == [
        'import-policy: skipped "h\\n::error::INJECTED\\n.py": a symbolic link to outside the project root',
    ]
    # Named on the command line and missing; slow; unreadable: each says the path quoted.
    code, _, err = project.run("check", "gone\n::error::X.py")
    assert code == 2 and err.splitlines() == ['import-policy: cannot read "gone\\n::error::X.py": No such file or directory']
    (project.root / INJECTED).unlink()
    project.write(INJECTED, "import pickle\n")
    from import_policy.pipeline import extract, slow

    monkeypatch.setattr(slow, "SECONDS", -1.0)
    code, _, err = project.run("check", "--no-cache", INJECTED)
    [line] = err.splitlines()  # one line, whatever the file took (the machine may be shared)
    assert code == 1 and re.fullmatch(r'import-policy: slow file: "h\\n::error::INJECTED\\n\.py" took \d+\.\d s', line), line
    monkeypatch.setattr(slow, "SECONDS", 60.0)

    def unreadable(file: object) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(extract, "read_file", unreadable)
    code, _, err = project.run("check", "--no-cache", INJECTED)
    assert code == 2
    assert err.splitlines() == ['import-policy: cannot read "h\\n::error::INJECTED\\n.py": Permission denied']
