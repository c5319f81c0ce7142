"""A warm whole-tree run is answered from the policy index and the run cache without building
the policy; any changed byte of any configuration file it came from builds it afresh."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Project
from import_policy.cache.key import cache_key
from import_policy.cache.seal import FOLDER, seal
from import_policy.commands import check as check_command
from import_policy.policy import load as config_load
from import_policy.kinds.unused_suppression import UNUSED_SUPPRESSION

TOP = """\
version: 1
extends: [base.yaml]
rules:
  - id: no-pickle
    forbid: [pickle]
"""

BASE = """\
version: 1
extends: [rocm-safety]
rules:
  - id: no-marshal
    forbid: [marshal]
"""


def _tree(project: Project) -> None:
    project.config(TOP)
    project.write("base.yaml", BASE)
    project.write("pkg/__init__.py", "")
    project.write("pkg/a.py", "import pickle\nimport marshal\nimport shelve\n")


def _no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the policy was built")

    monkeypatch.setattr(config_load, "_build", refuse)


def _policy_entries(root: Path) -> list[Path]:
    return sorted((root / FOLDER / "policies").glob("*.json"))


def _rules(out: str) -> set[str]:
    return {line.split()[1] for line in out.splitlines() if line.startswith("pkg/")}


def test_a_warm_run_builds_no_policy(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(project)
    first = project.run("check")
    assert first[0] == 1 and _rules(first[1]) == {"no-pickle", "no-marshal"}
    assert len(_policy_entries(project.root)) == 1
    _no_build(monkeypatch)
    assert project.run("check") == first
    assert project.run("check", ".") == first
    assert project.run("check", "--format", "json") == project.run("check", "--format", "json")


def test_a_changed_top_config_is_built_afresh(project: Project) -> None:
    _tree(project)
    project.run("check")
    project.config(TOP + "  - id: no-shelve\n    forbid: [shelve]\n")
    again = project.run("check")
    assert _rules(again[1]) == {"no-pickle", "no-marshal", "no-shelve"}
    assert again == project.run("check", "--no-cache")
    assert project.run("check") == again  # and that is what is remembered now


def test_a_changed_extended_file_is_built_afresh(project: Project) -> None:
    _tree(project)
    project.run("check")
    project.write("base.yaml", BASE.replace("marshal", "shelve"))
    again = project.run("check")
    assert _rules(again[1]) == {"no-pickle", "no-shelve"}
    assert again == project.run("check", "--no-cache")


def test_the_same_bytes_again_hit(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rewriting a configuration with the bytes it had changes nothing: it is keyed by bytes."""
    _tree(project)
    first = project.run("check")
    project.config(TOP)
    project.write("base.yaml", BASE)
    _no_build(monkeypatch)
    assert project.run("check") == first


def test_a_deleted_entry_is_a_miss_and_is_written_again(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(project)
    first = project.run("check")
    for entry in _policy_entries(project.root):
        entry.unlink()
    assert project.run("check") == first
    assert len(_policy_entries(project.root)) == 1
    _no_build(monkeypatch)
    assert project.run("check") == first


def test_a_forged_entry_is_ignored(project: Project) -> None:
    """An entry claiming that the edited configuration is the one the last run was keyed by
    would answer with that run; sealed with any key but the user's, it is never read."""
    _tree(project)
    project.run("check")
    [entry] = _policy_entries(project.root)
    data = json.loads(entry.read_bytes())
    project.config(TOP + "  - id: no-shelve\n    forbid: [shelve]\n")
    top = str((project.root / "import-policy.yaml").resolve())
    top_digest = config_load.digest((project.root / "import-policy.yaml").read_bytes())
    data["sources"] = [[top, top_digest] if source == top else [source, digest] for source, digest in data["sources"]]
    forged_key = config_load.entry_key(top, top_digest, Path.cwd(), project.root.resolve())
    del data["mac"]
    data["key"] = forged_key
    text = json.dumps(data, separators=(",", ":"))
    forged = project.root / FOLDER / "policies" / f"{forged_key}.json"
    forged.write_bytes(seal(text, b"\x01" * 32, b"policy"))
    assert "no-shelve" in project.run("check")[1]
    # The same entry sealed with the user's key would be honoured: the MAC is all that stops it.
    secret = cache_key(project.root)
    assert secret is not None
    project.config(TOP + "  - id: no-os\n    forbid: [os]\n")
    top_digest = config_load.digest((project.root / "import-policy.yaml").read_bytes())
    data["sources"] = [[top, top_digest] if source == top else [source, digest] for source, digest in data["sources"]]
    data["key"] = forged_key = config_load.entry_key(top, top_digest, Path.cwd(), project.root.resolve())
    (project.root / FOLDER / "policies" / f"{forged_key}.json").write_bytes(
        seal(json.dumps(data, separators=(",", ":")), secret, b"policy")
    )
    forged_out = project.run("check")[1]
    assert _rules(forged_out) == {"no-pickle", "no-marshal"}  # the forgery answered with the first run


def test_a_tampered_entry_is_ignored(project: Project) -> None:
    _tree(project)
    first = project.run("check")
    [entry] = _policy_entries(project.root)
    entry.write_bytes(entry.read_bytes().replace(b'"exclude":[]', b'"exclude":["pkg/"]'))
    assert project.run("check") == first


def test_an_unknown_rule_is_refused_when_warm(project: Project) -> None:
    _tree(project)
    project.run("check")
    code, _, err = project.run("check", "--extend-select", "nope")
    assert code == 2 and "--extend-select: unknown rule 'nope'" in err


def test_selections_are_answered_warm(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(project)
    selected = project.run("check", "--select", "no-pickle")
    ignored = project.run("check", "--ignore", "no-pickle")
    _no_build(monkeypatch)
    assert project.run("check", "--select", "no-pickle") == selected
    assert project.run("check", "--ignore", "no-pickle") == ignored
    assert _rules(selected[1]) == {"no-pickle"} and _rules(ignored[1]) == {"no-marshal"}


def test_the_default_preset_is_answered_warm(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/k.py", "import triton\n")
    first = project.run("check")
    assert "no configuration found" in first[2]
    _no_build(monkeypatch)
    assert project.run("check") == first


def test_the_unused_suppression_id_is_the_kinds() -> None:
    assert check_command.UNUSED_SUPPRESSION == UNUSED_SUPPRESSION


PROBE = """\
import sys
from import_policy.cli import main
code = main(sys.argv[1:])
heavy = ('yaml', 'pathspec', 'libcst', 'import_policy.config.validate', 'import_policy.config.yamltree',
         'import_policy.kinds.registry', 'import_policy.pipeline.engine')
print(code, sorted(name for name in heavy if name in sys.modules))
"""


def _modules(root: Path, *argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "check", *argv], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )
    return done.stdout.strip().splitlines()[-1]


def _past_the_racy_window() -> None:
    from import_policy.cache.racy import WINDOW_NS

    time.sleep(WINDOW_NS / 1e9 + 0.1)


@pytest.mark.slow
def test_the_warm_path_imports_no_yaml_validation_or_pathspec(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text(TOP, encoding="utf-8")
    (tmp_path / "base.yaml").write_text(BASE, encoding="utf-8")
    (tmp_path / ".gitignore").write_text("build/\n", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("import pickle\n", encoding="utf-8")
    cold = _modules(tmp_path)
    assert cold.startswith("1 ") and "'yaml'" in cold and "'pathspec'" in cold  # the probe sees them when used
    # The cache folder made in the root after the first walk changed the root's mtime: the
    # second run lists the root again, matching .gitignore; from then on nothing changed.
    assert "'yaml'" not in _modules(tmp_path)
    # A listing made within two seconds of its folder's last change is racily clean
    # (cache.racy): the next run lists the folder again. Once the window has passed, the
    # listing made then stands, and nothing is re-read.
    _past_the_racy_window()
    _modules(tmp_path)  # lists the root again: the last listing was made within the window
    assert _modules(tmp_path) == "1 []"
    (tmp_path / "base.yaml").write_text(BASE + "  - id: no-os\n    forbid: [os]\n", encoding="utf-8")
    assert "'yaml'" in _modules(tmp_path)  # changed: built afresh
    assert _modules(tmp_path) == "1 []"
    (tmp_path / "pkg" / "b.py").write_text("import os\n", encoding="utf-8")
    assert "'pathspec'" in _modules(tmp_path)  # a folder that changed is matched against .gitignore again


def test_an_opt_in_rule_named_by_extend_select_is_not_answered_by_the_plain_run(project: Project) -> None:
    _tree(project)
    project.write("pkg/b.py", "import os  # import-policy: ignore[no-pickle]\n")
    plain = project.run("check")
    assert "unused-suppression" not in plain[1]
    extended = project.run("check", "--extend-select", "unused-suppression")
    assert "pkg/b.py:1" in extended[1] and "unused-suppression" in extended[1]
    assert project.run("check", "--extend-select", "unused-suppression") == extended
    assert project.run("check") == plain


def test_an_enable_switch_in_the_config_is_a_fresh_run(project: Project) -> None:
    _tree(project)
    project.write("pkg/b.py", "import os  # import-policy: ignore[no-pickle]\n")
    plain = project.run("check")
    project.config(TOP.replace("rules:", "enable: [unused-suppression]\nrules:"))
    enabled = project.run("check")
    assert "unused-suppression" not in plain[1] and "unused-suppression" in enabled[1]
    assert enabled == project.run("check", "--no-cache")


def test_conflicting_flags_are_refused_when_warm(project: Project) -> None:
    _tree(project)
    project.run("check", "--format", "github")
    code, _, err = project.run("check", "--statistics", "--format", "github")
    assert code == 2 and "--statistics prints a table" in err


@pytest.mark.parametrize(
    "flags",
    [[], ["--statistics"], ["--format", "json"], ["--format", "github"], ["-q"], ["--exit-zero"],
     ["--unsafe-fixes"], ["--statistics", "--format", "json"], ["--ignore", "no-marshal", "--quiet"]],
)
def test_a_warm_answer_is_the_fresh_one(project: Project, monkeypatch: pytest.MonkeyPatch, flags: list[str]) -> None:
    _tree(project)
    project.write("pkg/c.py", "import re\n")
    project.config(TOP + "  - id: re-regex\n    forbid: [re]\n    fix: {replace_module: regex}\n    allow_in: [pkg/gone.py]\n")
    fresh = project.run("check", "--no-cache", *flags)
    assert project.run("check", *flags) == fresh
    _no_build(monkeypatch)
    assert project.run("check", *flags) == fresh


LAZY = """\
version: 1
rocm_safety:
  heavy_modules: [xformers]
  entry_modules: [pkg]
"""


@pytest.mark.parametrize("named", [[], ["pkg/__init__.py"]])
def test_a_pyproject_added_after_a_warm_run_is_read(project: Project, named: list[str]) -> None:
    """`requires-python` decides whether `lazy import` is lazy: a pyproject.toml that was not
    there when the policy was remembered is a change, as an edited one is."""
    project.config(LAZY)
    project.write("pkg/__init__.py", "lazy import xformers\n")
    first = project.run("check", *named)
    assert first[0] == 1 and "heavy-import-reachable" in first[1]  # 3.10 reads `lazy import` eagerly
    project.write("pyproject.toml", '[project]\nname = "pkg"\nrequires-python = ">=3.15"\n')
    fresh = project.run("check", "--no-cache", *named)
    assert fresh[0] == 0, fresh
    assert project.run("check", *named) == fresh


# The built policy itself, for the runs the run cache cannot answer (a pre-commit batch).


def _built_entries(root: Path) -> list[Path]:
    return sorted((root / FOLDER / "built").glob("*.json"))


def test_a_batch_takes_the_policy_built_before(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(project)
    first = project.run("check", "pkg/a.py")
    assert first[0] == 1 and _rules(first[1]) == {"no-pickle", "no-marshal"}
    assert len(_built_entries(project.root)) == 1
    _no_build(monkeypatch)
    assert project.run("check", "pkg/a.py") == first
    assert project.run("check", "pkg/a.py", "--select", "no-pickle")[0] == 1


@pytest.mark.parametrize("change", ["top", "extended"])
def test_a_batch_sees_a_changed_configuration(project: Project, change: str) -> None:
    _tree(project)
    project.run("check", "pkg/a.py")
    if change == "top":
        project.config(TOP + "  - id: no-shelve\n    forbid: [shelve]\n")
    else:
        project.write("base.yaml", BASE.replace("marshal", "shelve"))
    again = project.run("check", "pkg/a.py")
    assert again == project.run("check", "--no-cache", "pkg/a.py")
    assert "no-shelve" in _rules(again[1])


def test_no_cache_neither_reads_nor_keeps_a_built_policy(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(project)
    project.run("check", "--no-cache", "pkg/a.py")
    assert not (project.root / FOLDER / "built").exists()
    project.run("check", "pkg/a.py")
    built: list[int] = []
    real = config_load._build

    def counting(*args: object, **kwargs: object) -> object:
        built.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(config_load, "_build", counting)
    project.run("check", "--no-cache", "pkg/a.py")
    assert built == [1]


def test_a_forged_built_policy_is_ignored(project: Project) -> None:
    """A built policy sealed with another key, with the rules emptied, is never read."""
    _tree(project)
    first = project.run("check", "pkg/a.py")
    [entry] = _built_entries(project.root)
    data = json.loads(entry.read_bytes())
    del data["mac"]
    rules = data["built"]["v"]["policy"]["v"]["rules"]
    rules["t"] = []
    entry.write_bytes(seal(json.dumps(data, separators=(",", ":")), b"\x01" * 32, b"built-policy"))
    assert project.run("check", "pkg/a.py") == first
