"""Configuration: discovery, extends, and one test per fault (exit 2 with file:line)."""

from __future__ import annotations

import pytest

from conftest import Project


def errors(project: Project, config: str, *argv: str) -> list[str]:
    project.config(config)
    project.write("a.py", "import pickle\n")
    code, out, err = project.run("check", *argv)
    assert code == 2
    assert out == ""  # nothing was checked
    return [line for line in err.splitlines() if not line.endswith("nothing was checked")]


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (
            "version: 1\nrulez: []\n",
            "import-policy: import-policy.yaml:2: unknown key 'rulez' in the configuration (did you mean 'rules'?); "
            "expected one of: enable, environment, exclude, extend_exclude, extends, follow, ignore, packages, platforms, rocm_safety, root, roots, rules, target_version, version",
        ),
        (
            "version: 1\ntarget_version: 3.15\nextends: [rocm-safety]\n",
            'import-policy: import-policy.yaml:2: target_version must be a Python version in quotes, like "3.15", '
            "got float 3.15",
        ),
        (
            "rocm_safety:\n  values: [DEVICE_TYPE]\n",
            "import-policy: import-policy.yaml:2: values must map names to what they hold on ROCm "
            "(DEVICE_TYPE: hip), got a list",
        ),
        (
            "rocm_safety:\n  values:\n    DEVICE TYPE: hip\n",
            "import-policy: import-policy.yaml:3: values entry 'DEVICE TYPE' must be a name such as DEVICE_TYPE "
            'or torch.version.cuda, or a dict entry such as env["has_te"]',
        ),
        (
            "rocm_safety:\n  values:\n    env[has_te]: false\n",
            "import-policy: import-policy.yaml:3: values entry 'env[has_te]' must be a name such as DEVICE_TYPE "
            'or torch.version.cuda, or a dict entry such as env["has_te"]',
        ),
        (
            "rocm_safety:\n  values:\n    DEVICE_TYPE: [hip]\n",
            "import-policy: import-policy.yaml:3: values['DEVICE_TYPE'] must be a string, number, true or null "
            "(false removes the name), got a list",
        ),
        ("version: 2\n", "import-policy: import-policy.yaml:1: version must be 1, got int 2"),
        ("rules: {}\n", "import-policy: import-policy.yaml:1: rules must be a list of rules, got a map"),
        (
            "rules:\n  - id: Bad_Id\n    forbid: [x]\n",
            "import-policy: import-policy.yaml:2: bad rule id 'Bad_Id': use lowercase letters, digits and '-', "
            "starting with a letter or digit",
        ),
        (
            "rules:\n  - id: a\n    forbid: [x]\n  - id: a\n    forbid: [y]\n",
            "import-policy: import-policy.yaml:4: duplicate rule id 'a' (first declared on line 2)",
        ),
        (
            "rules:\n  - id: a\n    forbid: [x..y]\n",
            "import-policy: import-policy.yaml:3: bad forbid entry: 'x..y' is not a dotted name: "
            "segments hold letters, digits, '_' and '*'",
        ),
        (
            "rules:\n  - id: a\n    forbid: [x]\n    files: ['/abs/**']\n",
            "import-policy: import-policy.yaml:4: bad files entry: '/abs/**' is absolute; "
            "globs are relative to the project root",
        ),
        (
            "rules:\n  - id: a\n    forbid: [x]\n    allow_in: ['a/[b']\n",
            "import-policy: import-policy.yaml:4: bad allow_in entry: unclosed '[' in 'a/[b'",
        ),
        (  # `re` refuses the class: a configuration error, not a crash
            "rules:\n  - id: a\n    forbid: [x]\n    files: ['a/[z-a]/b.py']\n",
            "import-policy: import-policy.yaml:4: bad files entry: 'a/[z-a]/b.py' is not a valid glob: "
            "bad character range z-a",
        ),
        (
            "rules:\n  - id: a\n    forbid: [x]\n    scope: global\n",
            "import-policy: import-policy.yaml:4: scope must be one of: module, anywhere; got 'global'",
        ),
        (
            "rules:\n  - id: a\n    forbid: [x]\n    severity: fatal\n",
            "import-policy: import-policy.yaml:4: severity must be one of: error, warning; got 'fatal'",
        ),
        (
            "rules:\n  - id: a\n    forbid: 3\n",
            "import-policy: import-policy.yaml:3: forbid must be a list of strings, got int 3",
        ),
        (
            "rules:\n  - id: a\n    forbid: [x]\n    forbids: [x]\n",
            "import-policy: import-policy.yaml:4: unknown key 'forbids' in a rule of kind 'import' (did you mean 'forbid'?); expected one of: "
            "allow_in, examples, except, files, fix, forbid, id, kind, message, scope, severity, type_checking",
        ),
        (
            "rules:\n  - id: a\n    message: hi\n",
            "import-policy: import-policy.yaml:2: rule 'a' needs a forbid list",
        ),
        (
            "rules:\n  - id: syntax-error\n    forbid: [x]\n",
            "import-policy: import-policy.yaml:2: rule id 'syntax-error' is reserved for a built-in rule; reserved: "
            "syntax-error, trial-import-probe, eager-heavy-import, import-time-jit, heavy-import-reachable, "
            "unused-suppression",
        ),
        (
            "rules:\n  - id: t\n    kind: token\n    forbid: ['(unclosed']\n",
            "import-policy: import-policy.yaml:4: bad regular expression '(unclosed': "
            "missing ) at position 9",
        ),
        (
            "rules:\n  - id: a\n    kind: module\n    forbid: [x]\n",
            "import-policy: import-policy.yaml:3: kind must be one of: import, include, token, relative-imports, import-time, layers, independence, protected, acyclic; got 'module'",
        ),
        # the wording after "invalid YAML:" is PyYAML's, and differs with and without libyaml
        # an unclosed bracket: where it opened, not one line past the end of the file
        ("rules: [\n", "import-policy: import-policy.yaml:1: invalid YAML: "),
        (
            "x: !!python/object:os.system {}\n",
            "import-policy: import-policy.yaml:1: unsupported YAML tag 'tag:yaml.org,2002:python/object:os.system'; "
            "only plain maps are allowed",
        ),
    ],
)
def test_each_fault(project: Project, config: str, expected: str) -> None:
    first = errors(project, config)[0]
    assert first == expected or (expected.endswith("invalid YAML: ") and first.startswith(expected))


@pytest.mark.parametrize(
    ("config", "line", "column"),
    [
        ("version: 1\nrules:\n  - id: a\n    forbid: [pickle\n", 4, 13),
        ("version: 1\nrules:\n  - id: a\n    forbid: [pickle\n    message: x\n", 4, 13),
        ("version: 1\nrules:\n  - {id: a, forbid: [pickle]\n", 3, 5),
        ("version: 1\nrules:\n  - id: 'a\n    forbid: [pickle]\n", 3, 9),
    ],
)
def test_an_unclosed_bracket_or_quote_is_reported_where_it_opened(
    project: Project, config: str, line: int, column: int
) -> None:
    # PyYAML's own context mark is the expectation (1-based here): where the bracket or quote opened.
    import yaml

    with pytest.raises(yaml.MarkedYAMLError) as raised:
        yaml.compose(config, Loader=yaml.SafeLoader)
    mark = raised.value.context_mark
    assert mark is not None and (mark.line + 1, mark.column + 1) == (line, column)
    (first, *_) = errors(project, config)
    assert first.startswith(f"import-policy: import-policy.yaml:{line}: invalid YAML: "), first
    assert f" at column {column} " in first and "still open at " in first, first


@pytest.mark.parametrize(
    ("config", "line", "message"),
    [
        # PyYAML's context mark for a flow node is the stream's end: the bracket is found by its scanner
        ("rules: [\n", 1, "(the `[` at column 8 is still open at the end of the file)"),
        ("x: [a, {b: [1]\n", 1, "(the `{` at column 8 is still open at the end of the file)"),
        ("x:\n  - [\n    a,\n", 2, "(the `[` at column 5 is still open at the end of the file)"),
    ],
)
def test_an_unclosed_bracket_at_the_end_is_never_reported_past_the_last_line(
    project: Project, config: str, line: int, message: str
) -> None:
    (first, *_) = errors(project, config)
    assert first.startswith(f"import-policy: import-policy.yaml:{line}: invalid YAML: ") and first.endswith(message), first


def test_unknown_preset_lists_unknown_and_valid(project: Project) -> None:
    (line,) = errors(project, "extends: [rocm-safty]\n")
    assert line.startswith("import-policy: import-policy.yaml:1: unknown extends 'rocm-safty': not a built-in preset (")
    assert "rocm-safety" in line
    assert line.endswith(") nor an existing .yaml file relative to this one")


def test_every_fault_reported_at_once(project: Project) -> None:
    config = (
        "version: 1\n"
        "colour: red\n"
        "rules:\n"
        "  - id: a\n"
        "    forbid: ['a b']\n"
        "    allow_in: ['x/[']\n"
        "  - id: a\n"
        "    forbid: [x]\n"
        "rocm_safety:\n"
        "  heavy: [x]\n"
    )
    lines = errors(project, config)
    assert [line.split(":")[2] for line in lines] == ["2", "5", "6", "10"]
    assert "unknown key 'heavy' in rocm_safety" in lines[3]


def test_bad_rule_keeps_its_id_out_of_duplicate_check(project: Project) -> None:
    lines = errors(project, "rules:\n  - id: a\n    forbid: ['']\n  - id: a\n    forbid: [x]\n")
    assert lines == ["import-policy: import-policy.yaml:3: bad forbid entry: an empty dotted name"]


def test_circular_extends(project: Project) -> None:
    project.write("a.yaml", "extends: [b.yaml]\n")
    project.write("b.yaml", "extends: [a.yaml]\n")
    lines = errors(project, "extends: [a.yaml]\n")
    assert len(lines) == 1
    assert lines[0].startswith("import-policy: b.yaml:1: circular extends: ")
    assert lines[0].endswith("a.yaml")


def test_fault_in_extended_file_names_that_file(project: Project) -> None:
    project.write("base/common.yaml", "rules:\n  - id: x\n    forbid: [1]\n")
    lines = errors(project, "extends: [base/common.yaml]\n")
    assert lines == ["import-policy: base/common.yaml:3: each entry of forbid must be a string, got int 1"]


def test_config_file_given_but_missing(project: Project) -> None:
    code, _, err = project.run("check", "--config", "missing.yaml")
    assert code == 2
    assert "import-policy: missing.yaml: no such file\n" in err


# --- discovery and merging ------------------------------------------------------------------


def test_discovered_from_a_subfolder_and_root_is_its_folder(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.config("rules:\n  - id: no-pickle\n    forbid: [pickle]\n    files: ['pkg/**']\n")
    project.write("pkg/sub/a.py", "import pickle\n")
    monkeypatch.chdir(project.root / "pkg")
    code, out, _ = project.run("check")
    assert code == 1
    assert out.splitlines()[0] == "sub/a.py:1:8: no-pickle `pickle` is forbidden"


def test_dot_import_policy_yaml(project: Project) -> None:
    project.write(".import-policy.yaml", "rules:\n  - id: no-pickle\n    forbid: [pickle]\n")
    project.write("a.py", "import pickle\n")
    assert project.lines() == ["a.py:1:8: no-pickle `pickle` is forbidden"]


def test_pyproject_names_the_config(project: Project) -> None:
    project.write("pyproject.toml", '[tool.import-policy]\nconfig = "policy/ip.yaml"\n')
    project.write("policy/ip.yaml", "rules:\n  - id: no-pickle\n    forbid: [pickle]\n    files: ['a.py']\n")
    project.write("policy/a.py", "import pickle\n")
    project.write("a.py", "import pickle\n")
    # the pyproject.toml's folder is the project root, not policy/
    assert project.lines() == ["a.py:1:8: no-pickle `pickle` is forbidden"]


def test_pyproject_without_the_table_is_passed_over(project: Project) -> None:
    project.write("pyproject.toml", "[tool.other]\nx = 1\n")
    project.write("a.py", "import pickle\n")
    code, _, err = project.run("check")
    assert code == 0
    assert "no configuration found from . upward (looked for import-policy.yaml, .import-policy.yaml, or a pyproject.toml with [tool.import-policy] config); using the built-in rocm-safety preset" in err


def test_extends_merges_and_a_later_rule_replaces_an_earlier_one(project: Project) -> None:
    project.write("base.yaml", "exclude: ['gen/**']\nrules:\n  - id: p\n    forbid: [pickle]\n  - id: q\n    forbid: [re]\n")
    project.config("extends: [base.yaml]\nrules:\n  - id: p\n    forbid: [cloudpickle]\n")
    project.write("a.py", "import pickle, cloudpickle, re\n")
    project.write("gen/b.py", "import re\n")
    assert project.lines() == [
        "a.py:1:16: p `cloudpickle` is forbidden",
        "a.py:1:29: q `re` is forbidden",
    ]


def test_exclude_and_gitignore(project: Project) -> None:
    project.config("exclude: ['build/**', 'gen/']\nrules:\n  - id: p\n    forbid: [pickle]\n")
    project.write(".gitignore", "ignored/\n*.gen.py\n")
    for path in ("a.py", "build/x.py", "gen/y.py", "ignored/z.py", "w.gen.py", ".venv/v.py", "s/t.pyi"):
        project.write(path, "import pickle\n")
    assert [line.split(":")[0] for line in project.lines()] == ["a.py", "s/t.pyi"]
    # a named file is checked even if the walk skips it, unless `exclude` covers it
    assert [line.split(":")[0] for line in project.lines("ignored/z.py", "build/x.py")] == ["ignored/z.py"]


def test_missing_path_is_exit_2(project: Project) -> None:
    project.config("rules:\n  - id: p\n    forbid: [pickle]\n")
    code, out, err = project.run("check", "nope.py")
    assert code == 2
    assert "cannot read nope.py: No such file or directory" in err
