"""`platforms:` (declared profiles, merged across `extends`, resolved through their own
`extends`), a rule's `platform:`, and the `extend_*` lists of `rocm_safety` and `exclude`."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Project
from import_policy.config.model import Policy, Profile
from import_policy.config.platforms import BUILTIN, profile_named
from import_policy.policy.load import load, preset_text

RULE = """\
rules:
  - id: light
    kind: import-time
    entry: [app]
    forbid: [heavy]
    platform: {platform}
"""


def policy(project: Project, config: str) -> Policy:
    project.config(config)
    project.write("app/__init__.py", "")
    return load(None, project.root).policy


def errors(project: Project, config: str) -> list[str]:
    project.config(config)
    project.write("app/__init__.py", "")
    code, out, err = project.run("check")
    assert (code, out) == (2, "")
    return [line for line in err.splitlines() if not line.endswith("nothing was checked")]


def test_the_rocm_profile_is_the_presets() -> None:
    import yaml

    preset = yaml.safe_load(preset_text("rocm-safety") or "")["rocm_safety"]
    rocm = BUILTIN["rocm"]
    assert list(rocm.guards) == preset["guards"]
    assert list(rocm.true) == preset["rocm"]
    assert dict(rocm.values) == preset["values"]


def test_rocm_is_the_rocm_safety_sections_where_there_is_one(project: Project) -> None:
    found = policy(project, "version: 1\nextends: [rocm-safety]\nrocm_safety:\n  extend_guards: [is_blackwell]\n")
    rocm = profile_named(found, "rocm")
    assert rocm is not None and rocm.guards == (*BUILTIN["rocm"].guards, "is_blackwell")
    # without one, the built-in profile (the preset's)
    assert profile_named(policy(project, "version: 1\n" + RULE.format(platform="rocm")), "rocm") == BUILTIN["rocm"]


def test_a_declared_profile_extends_a_built_in_one(project: Project) -> None:
    found = policy(project, """\
version: 1
platforms:
  blackwell:
    extends: cuda
    extend_guards: [is_hopper]
    extend_true: [is_blackwell]
    values: {DEVICE_CAPABILITY: "10.0", torch.version.hip: false}
""" + RULE.format(platform="blackwell"))
    cuda = BUILTIN["cuda"]
    assert profile_named(found, "blackwell") == Profile(
        "blackwell", (*cuda.guards, "is_hopper"), (*cuda.true, "is_blackwell"), (("DEVICE_CAPABILITY", "10.0"),),
    )  # `false` on a name the base profile gave removes it


def test_lists_replace_and_extend_lists_add_across_files(project: Project) -> None:
    project.write("base.yaml", """\
version: 1
platforms:
  mine: {extends: cpu, guards: [is_a], values: {DEVICE: cpu, MODE: fast}}
  cuda: {extend_true: [is_sm90]}
""")
    found = policy(project, """\
version: 1
extends: [base.yaml]
platforms:
  mine: {extend_guards: [is_b], values: {MODE: false, OTHER: false}}
""" + RULE.format(platform="mine"))
    # `MODE: false` removes what base.yaml gave; `OTHER: false`, given nowhere before, holds false
    assert profile_named(found, "mine") == Profile(
        "mine", ("is_a", "is_b"), BUILTIN["cpu"].true, (("torch.version.hip", None), ("DEVICE", "cpu"), ("OTHER", False)),
    )
    # a built-in name adds to the built-in profile
    cuda = profile_named(found, "cuda")
    assert cuda is not None and cuda.true == (*BUILTIN["cuda"].true, "is_sm90") and cuda.guards == BUILTIN["cuda"].guards


def test_a_profile_without_extends_starts_from_nothing(project: Project) -> None:
    found = policy(project, "version: 1\nplatforms:\n  tpu: {true: [is_tpu]}\n" + RULE.format(platform="tpu"))
    assert profile_named(found, "tpu") == Profile("tpu", (), ("is_tpu",), ())


MINE = "version: 1\nplatforms:\n  mine: {extends: cuda}\n"
ANY_RULE = RULE.format(platform="any")


@pytest.mark.parametrize("config, expected", [
    (MINE + RULE.format(platform="cuda2"),
     "import-policy.yaml:9: rule 'light': unknown platform 'cuda2'; platforms: any, rocm, cuda, cpu, xpu, mine (declare one under platforms:)"),
    (MINE + "  other: {extends: cdua}\n" + ANY_RULE,
     "import-policy.yaml:4: platform 'other' extends unknown platform 'cdua'; platforms: any, rocm, cuda, cpu, xpu, mine, other"),
    (MINE + "  a: {extends: b}\n  b: {extends: a}\n" + ANY_RULE, "import-policy.yaml:5: platform 'b': circular extends: a -> b -> a"),
    (MINE + "  rocm: {guards: [x]}\n" + ANY_RULE,
     "import-policy.yaml:4: platform 'rocm' is the rocm_safety section's: set rocm_safety.guards, rocm and values"),
    (MINE + "  any: {guards: [x]}\n" + ANY_RULE, "import-policy.yaml:4: platform 'any' is not a profile"),
    (MINE + "  Big: {guards: [x]}\n" + ANY_RULE, "import-policy.yaml:4: platform name 'Big' must be lowercase letters"),
    (MINE + "  cuda: {extends: cpu}\n" + ANY_RULE, "import-policy.yaml:4: platform 'cuda' is built in: its entry adds to the built-in profile"),
    (MINE + "  other: {gaurds: [x]}\n" + ANY_RULE,
     "import-policy.yaml:4: unknown key 'gaurds' in platform 'other' (did you mean 'guards'?); expected one of: extend_guards, extend_true, extends, guards, true, values"),
    (MINE + "  other: {guards: ['not a name']}\n" + ANY_RULE, "import-policy.yaml:4: platforms.other.guards entry 'not a name' must be a name"),
    (MINE + "  other: {values: [x]}\n" + ANY_RULE, "import-policy.yaml:4: values must map names to what they hold on other"),
    ("version: 1\nplatforms: [cuda]\n" + ANY_RULE, "import-policy.yaml:2: platforms must map profile names to their settings"),
])
def test_each_fault_names_its_line(project: Project, config: str, expected: str) -> None:
    found = errors(project, config)
    assert any(expected in line for line in found), found


def test_extend_lists_of_rocm_safety_add_to_the_presets(project: Project) -> None:
    found = policy(project, """\
version: 1
extends: [rocm-safety]
rocm_safety:
  extend_guards: [is_blackwell]
  extend_rocm: [is_mi300]
  entry_modules: [app]
  extend_entry_modules: [app.worker]
""")
    rocm = found.rocm_safety
    assert rocm is not None
    assert rocm.guards == (*BUILTIN["rocm"].guards, "is_blackwell")
    assert rocm.rocm == (*BUILTIN["rocm"].true, "is_mi300")
    assert rocm.entry_modules == ("app", "app.worker")
    assert rocm.origin_of("guards", "is_blackwell").line == 4


def test_a_list_set_replaces_and_its_extend_adds_after(project: Project) -> None:
    found = policy(project, "version: 1\nextends: [rocm-safety]\nrocm_safety:\n  guards: [is_a]\n  extend_guards: [is_b]\n")
    assert found.rocm_safety is not None and found.rocm_safety.guards == ("is_a", "is_b")


def test_extend_entry_modules_needs_a_list_to_add_to(project: Project) -> None:
    [line] = errors(project, "version: 1\nextends: [rocm-safety]\nrocm_safety:\n  extend_entry_modules: [app]\n")
    assert line.startswith("import-policy: import-policy.yaml:4: extend_entry_modules adds to rocm_safety.entry_modules, which no file sets")


def test_extend_exclude_adds_as_exclude_does(project: Project) -> None:
    project.write("base.yaml", "version: 1\nexclude: [gen/]\n")
    found = policy(project, "version: 1\nextends: [base.yaml, rocm-safety]\nextend_exclude: [build/]\n")
    assert [glob.text for glob in found.exclude] == ["gen/", "build/"]


def test_rules_and_explain_show_the_platform(project: Project) -> None:
    policy(project, "version: 1\nplatforms:\n  mine: {extends: cuda, extend_guards: [is_a]}\n" + RULE.format(platform="mine"))
    code, out, _ = project.run("explain", "light")
    assert code == 0 and "  platform:      mine (" in out
    assert f"    guards: {', '.join(BUILTIN['cuda'].guards)}, is_a\n" in out
    assert "    from:   import-policy.yaml:3\n" in out
    code, out, _ = project.run("rules")
    assert code == 0 and "\nplatforms (in force):\n  mine:\n    guards: " in out


def test_a_declared_profile_decides_what_a_rule_reports(project: Project, tmp_path: Path) -> None:
    config = "version: 1\nplatforms:\n  mine: {extends: cuda, extend_guards: [is_blackwell]}\n" + RULE.format(platform="{p}")
    project.write("app/__init__.py", "from app.flags import is_blackwell\nif is_blackwell():\n    import heavy\n")
    project.write("app/flags.py", "def is_blackwell():\n    return False\n")
    project.config(config.replace("{p}", "cuda"))
    assert len(project.lines("--no-cache")) == 1
    project.config(config.replace("{p}", "mine"))
    assert project.lines("--no-cache") == []
    assert project.lines() == []  # warm, too
