"""`--format sarif` and `--format github`: snapshots of the bundled example, the SARIF schema, escaping."""

from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Project, snapshot
from import_policy import __version__
from import_policy.cli import main
from import_policy.policy.load import load
from import_policy.diagnostics import Diagnostic
from import_policy.fix.patch import edits_between
from import_policy.report import github, sarif
from import_policy.report.fix_edits import replacements

REPO = Path(__file__).resolve().parents[2]
# Vendored from the SARIF 2.1.0 standard, so every clone validates against it.
SCHEMA = Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json"
# The example's own rules: the ROCm pass and the fixer are snapshotted by their own tests.
EXAMPLE_RULES = "no-pickle,regex-not-re,tilelang-gateway,no-cuda-sync,no-parent-imports,stable-abi-include,stable-abi-macro"


def _example(fmt: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    monkeypatch.chdir(REPO / "examples")
    monkeypatch.setenv("NO_COLOR", "1")
    code = main(["check", "--format", fmt, "--select", EXAMPLE_RULES])
    assert code == 1
    return capsys.readouterr().out


def _validate(document: dict[str, Any]) -> None:
    import jsonschema

    jsonschema.validate(document, json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_github_snapshot(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot("example.github", _example("github", monkeypatch, capsys))


def test_sarif_snapshot_and_schema(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    out = _example("sarif", monkeypatch, capsys)
    document = json.loads(out)
    _validate(document)
    run = document["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == (REPO / "examples").resolve().as_uri() + "/"
    # The snapshot must not depend on where the repository is checked out, nor on the version.
    run["originalUriBaseIds"]["%SRCROOT%"]["uri"] = "file:///SRCROOT/"
    driver = run["tool"]["driver"]
    assert driver["version"] == __version__
    driver["version"] = driver["semanticVersion"] = "VERSION"
    # The fixer's exact edits are its own tests' business; here, which findings carry a fix.
    fixed = 0
    for result in run["results"]:
        for fix in result.get("fixes", []):
            fixed += 1
            for change in fix["artifactChanges"]:
                assert change["artifactLocation"] == result["locations"][0]["physicalLocation"]["artifactLocation"]
                change["replacements"] = "<replacements>"
    # Two tilelang imports in modules `kernels/__init__.py` imports (the gateway's parent
    # package) carry none: rewriting them would make the gateway import itself.
    assert fixed == 3
    snapshot("example.sarif", json.dumps(document, indent=2) + "\n")


def test_sarif_fixes_end_to_end(project: Project) -> None:
    project.config("rules:\n  - id: no-re\n    forbid: [re]\n    fix: {replace_module: regex}\n")
    project.write("a.py", "import os\nimport re  # why\nimport json\n")
    code, out, _ = project.run("check", "--format", "sarif")
    assert code == 1
    document = json.loads(out)
    _validate(document)
    (result,) = document["runs"][0]["results"]
    assert result["fixes"] == [{
        "description": {"text": "Fix no-re"},
        "artifactChanges": [{
            "artifactLocation": {"uri": "a.py", "uriBaseId": "%SRCROOT%"},
            "replacements": [{
                "deletedRegion": {"startLine": 2, "startColumn": 1, "endLine": 3, "endColumn": 1},
                "insertedContent": {"text": "import regex as re  # why\n"},
            }],
        }],
    }]
    assert (project.root / "a.py").read_text() == "import os\nimport re  # why\nimport json\n"


def test_sarif_result_shape(project: Project) -> None:
    project.config("rules:\n  - id: no-pickle\n    message: no pickle\n    forbid: [pickle]\n    severity: warning\n")
    project.write("pkg/a.py", "import os, pickle\n")
    code, out, _ = project.run("check", "--format", "sarif")
    assert code == 0  # a warning only
    document = json.loads(out)
    _validate(document)
    run = document["runs"][0]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert "no-pickle" in rule_ids and "syntax-error" in rule_ids
    rule = run["tool"]["driver"]["rules"][rule_ids.index("no-pickle")]
    assert rule["shortDescription"] == {"text": "no pickle"}
    assert "forbid:        pickle" in rule["help"]["text"]
    assert rule["properties"]["source"] == "import-policy.yaml:2"
    assert run["results"] == [{
        "ruleId": "no-pickle",
        "ruleIndex": rule_ids.index("no-pickle"),
        "level": "warning",
        "message": {"text": "no pickle"},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": "pkg/a.py", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 1, "startColumn": 12, "endLine": 1, "endColumn": 18},
            }
        }],
    }]


def test_sarif_empty_run_is_valid(project: Project) -> None:
    project.config("rules:\n  - id: p\n    forbid: [pickle]\n")
    project.write("a.py", "import os\n")
    code, out, _ = project.run("check", "--format", "sarif")
    assert code == 0
    document = json.loads(out)
    _validate(document)
    assert document["runs"][0]["results"] == []


def test_sarif_fixes_from_a_fix_hook(project: Project) -> None:
    project.config("rules:\n  - id: no-re\n    forbid: [re]\n    fix: {replace_module: regex}\n")
    policy = load(None, project.root).policy
    d = Diagnostic("no-re", "error", "a.py", 2, 8, 2, 10, "no re", fixable=True, fix="a payload")
    before = "import os\nimport re\n"
    after = "import os\nimport regex as re\n"

    def fix_for(diagnostic: Diagnostic) -> sarif.Fix | None:
        return sarif.Fix("Fix no-re", tuple(replacements(before.encode(), edits_between(before.encode(), after.encode(), None))))

    document = sarif.document([d], policy, project.root, fix_for)
    _validate(document)
    assert document["runs"][0]["results"][0]["fixes"] == [{
        "description": {"text": "Fix no-re"},
        "artifactChanges": [{
            "artifactLocation": {"uri": "a.py", "uriBaseId": "%SRCROOT%"},
            "replacements": [{
                "deletedRegion": {"startLine": 2, "startColumn": 1, "endLine": 3, "endColumn": 1},
                "insertedContent": {"text": "import regex as re\n"},
            }],
        }],
    }]


def _apply(text: str, r: sarif.Replacement) -> str:
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: r.line - 1]) + r.column - 1
    end = sum(len(line) + 1 for line in lines[: r.end_line - 1]) + r.end_column - 1
    return text[:start] + r.text + text[end:]


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ("import re\n", "import regex as re\n", sarif.Replacement(1, 1, 2, 1, "import regex as re\n")),
        ("x\nimport os, a\ny\n", "x\nimport os\nfrom g import a\ny\n", sarif.Replacement(2, 1, 3, 1, "import os\nfrom g import a\n")),
        ("a = 1\nb = 2\n", "a = 1\n", sarif.Replacement(2, 1, 3, 1, "")),
        ("a = 1\r\nb = 2", "a = 1\r\nb = 3", sarif.Replacement(2, 1, 2, 6, "b = 3")),
        ("é = 1\nz\n", "é = 2\nz\n", sarif.Replacement(1, 1, 2, 1, "é = 2\n")),
        ("a\n", "b\na\n", sarif.Replacement(1, 1, 1, 1, "b\n")),
    ],
)
def test_replacement_between(before: str, after: str, expected: sarif.Replacement) -> None:
    (replacement,) = replacements(before.encode(), edits_between(before.encode(), after.encode(), None))
    assert replacement == expected
    assert _apply(before, replacement) == after


def test_replacements_per_change_region() -> None:
    # The fixer's two edits (a probe renamed at its import and at its call): two replacements
    # of whole lines, not one spanning the lines between.
    before = b"from u import probe\n\n\ndef f():\n    return probe('x')\n"
    edits = [(14, 19, b"spec"), (before.index(b"probe("), before.index(b"probe(") + 5, b"spec")]
    assert replacements(before, edits) == [
        sarif.Replacement(1, 1, 2, 1, "from u import spec\n"),
        sarif.Replacement(5, 1, 6, 1, "    return spec('x')\n"),
    ]
    assert replacements(b"a\nb\n", [(0, 2, b"a\n")]) == []
    assert replacements(b"a\n", [(0, 0, b"b\n")]) == [sarif.Replacement(1, 1, 1, 1, "b\n")]
    # A BOM is not part of the text: the first line starts after it.
    bom = codecs.BOM_UTF8
    assert replacements(bom + b"import re\n", [(0, len(bom) + 9, bom + b"import regex as re")]) == [
        sarif.Replacement(1, 1, 2, 1, "import regex as re\n"),
    ]


def test_sarif_unsafe_fix_is_offered_and_labelled(project: Project) -> None:
    project.config("extends: [rocm-safety]\nrocm_safety: {entry_modules: [a]}\n")
    project.write("a.py", 'from u import _has_module\n\n\ndef f():\n    return _has_module("tilelang")\n')
    code, out, _ = project.run("check", "--format", "sarif", "--select", "trial-import-probe")
    assert code == 1
    document = json.loads(out)
    _validate(document)
    (fix,) = document["runs"][0]["results"][0]["fixes"]
    assert fix["description"]["text"] == "Fix trial-import-probe (unsafe: may change behaviour; --unsafe-fixes)"
    assert [r["insertedContent"]["text"] for r in fix["artifactChanges"][0]["replacements"]] == [
        "from u import _has_module_spec\n", '    return _has_module_spec("tilelang")\n',
    ]


def test_github_annotation_and_escaping() -> None:
    d = Diagnostic("r-1", "warning", "dir,x/a:b%.py", 3, 5, 4, 2, "50% bad\r\nsecond line", chain=("a", "b"))
    assert github.annotation(d) == (
        "::warning file=dir%2Cx/a%3Ab%25.py,line=3,endLine=4,col=5,endColumn=2,title=r-1"
        "::50%25 bad%0D%0Asecond line%0Achain: a -> b"
    )
    assert github.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert github.escape_data("a:b,c%\n") == "a:b,c%25%0A"


def test_github_format_exit_codes(project: Project) -> None:
    project.config("rules:\n  - id: no-pickle\n    message: 'no pickle, ever'\n    forbid: [pickle]\n")
    project.write("a.py", "import pickle\n")
    code, out, _ = project.run("check", "--format", "github")
    assert code == 1
    assert out == "::error file=a.py,line=1,endLine=1,col=8,endColumn=14,title=no-pickle::no pickle, ever\n"
    project.write("a.py", "import os\n")
    assert project.run("check", "--format", "github") == (0, "", "")
