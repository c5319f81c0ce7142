"""A configuration that checks nothing is an error, not a silent `All checks passed!`
(contract section 2): nothing declared, an empty `forbid`, a `roots` entry that is not a
folder, a ROCm pass with no entry module. A namespace package is a package (PEP 420), and a
default entry that reaches no other module is warned of."""

from __future__ import annotations

import pytest

from conftest import Project

SUMMARY = "import-policy: 1 configuration error(s); nothing was checked"


def _fails(project: Project) -> list[str]:
    code, out, err = project.run("check", "--no-cache")
    assert (code, out) == (2, ""), err
    assert err.splitlines()[-1] == SUMMARY
    return err.splitlines()[:-1]


@pytest.mark.parametrize(("text", "line", "what"), [
    ("version: 1\n", 1, "it declares no rules"),
    ("version: 1\nrules: []\n", 2, "rules: [] declares no rule"),
    ("# nothing but\nexclude: [build/]\nrules: []\n", 3, "rules: [] declares no rule"),
])
def test_a_configuration_that_declares_nothing_is_an_error(project: Project, text: str, line: int, what: str) -> None:
    project.config(text)
    project.write("a.py", "import pickle\n")
    assert _fails(project) == [
        f"import-policy: import-policy.yaml:{line}: the configuration checks nothing: {what}, no rocm_safety and "
        "extends nothing; declare rules, rocm_safety or extends (e.g. extends: [rocm-safety])"
    ]


def test_a_base_that_declares_nothing_is_fine_when_extended(project: Project) -> None:
    project.write("base.yaml", "version: 1\nexclude: [build/]\n")
    project.config("version: 1\nextends: [base.yaml]\nrules:\n  - id: p\n    forbid: [pickle]\n")
    project.write("a.py", "import pickle\n")
    assert project.run("check", "--no-cache")[0] == 1


@pytest.mark.parametrize("kind", ["", "    kind: include\n", "    kind: token\n"])
def test_an_empty_forbid_is_an_error(project: Project, kind: str) -> None:
    project.config(f"version: 1\nrules:\n  - id: x\n{kind}    forbid: []\n")
    line = 5 if kind else 4
    assert _fails(project) == [f"import-policy: import-policy.yaml:{line}: rule 'x' has an empty forbid list, so it checks nothing; name what it forbids"]


def test_a_roots_entry_that_is_not_a_folder_is_an_error(project: Project) -> None:
    project.config("version: 1\nextends: [rocm-safety]\nroots:\n  - .\n  - scr\n")
    project.write("src/pkg/__init__.py", "import os\n")
    assert _fails(project) == [
        "import-policy: import-policy.yaml:5: roots entry 'scr' is not a folder under the project root (scr is not there)"
    ]


def test_a_rocm_pass_with_no_entry_is_an_error_saying_where_it_looked(project: Project) -> None:
    project.config("version: 1\nextends: [rocm-safety]\nroots: [src]\n")
    project.write("src/a.py", "import tilelang\n")
    project.write("src/data/x.txt", "not a module\n")  # a folder of other files is no package
    assert _fails(project) == [
        "import-policy: import-policy.yaml:2: the ROCm pass has no entry module: rocm_safety.entry_modules is not "
        "set and there is no top-level package (a folder with an __init__.py, or of modules) in src/ (roots 'src'); "
        "name the modules a process imports in rocm_safety.entry_modules, or set roots"
    ]


def test_with_no_configuration_it_is_a_warning(project: Project) -> None:
    project.write("a.py", "import os\n")
    code, out, err = project.run("check", "--no-cache")
    assert (code, out) == (0, "All checks passed!\n")
    assert err.splitlines()[1] == (
        "import-policy: warning: the ROCm pass has no entry module: rocm_safety.entry_modules is not set and there "
        "is no top-level package (a folder with an __init__.py, or of modules) in ./ (roots '.'); name the modules "
        "a process imports in rocm_safety.entry_modules, or set roots"
    )


def test_a_namespace_package_is_an_entry_and_one_reaching_nothing_is_warned_of(project: Project) -> None:
    # roots: ["."] over a src layout: `src` is a namespace package (Python imports it), and it
    # imports nothing, so the pass would check nothing from it.
    project.config("version: 1\nextends: [rocm-safety]\nroots: [\".\"]\n")
    project.write("src/mypkg/__init__.py", "import tilelang\n")
    code, out, err = project.run("check", "--no-cache")
    assert (code, out) == (0, "All checks passed!\n")
    assert err.splitlines() == [
        "import-policy: import-policy.yaml:2: warning: the default entry module 'src' (a top-level package under "
        "roots '.') reaches no other module (a namespace package), so the ROCm pass checks nothing from it; name "
        "the modules a process imports in rocm_safety.entry_modules"
    ]
    # With the src root the package is the entry, and its heavy import is found.
    project.config("version: 1\nextends: [rocm-safety]\nroots: [src]\n")
    code, out, err = project.run("check", "--no-cache")
    assert code == 1 and out.startswith("src/mypkg/__init__.py:1:8: heavy-import-reachable "), out
    assert err == ""


@pytest.mark.parametrize("own", ["import-policy.yaml", "pyproject.toml", "setup.py"])
def test_a_folder_that_is_a_project_of_its_own_is_no_namespace_package_of_the_outer_one(project: Project, own: str) -> None:
    """A monorepo's `archive/` with its own configuration (or its own distribution) is not a
    default entry module of the outer project: no warning on every run."""
    project.config("version: 1\nextends: [rocm-safety]\n")
    project.write("pkg/__init__.py", "from pkg import heavy\n")
    project.write("pkg/heavy.py", "import tilelang\n")
    project.write(f"archive/{own}", "version: 1\nextends: [rocm-safety]\n" if own.endswith(".yaml") else "")
    project.write("archive/tool/__init__.py", "import os\n")
    code, out, err = project.run("check", "--no-cache", ".")
    assert code == 1 and out.startswith("pkg/heavy.py:1:8: heavy-import-reachable importing `pkg` imports `tilelang`"), out
    assert "archive" not in err, err


def test_an_empty_init_as_the_default_entry_is_warned_of(project: Project) -> None:
    project.config("version: 1\nextends: [rocm-safety]\n")
    project.write("pkg/__init__.py", "")
    project.write("pkg/heavy.py", "import tilelang\n")
    code, out, err = project.run("check", "--no-cache")
    assert code == 0
    assert "the default entry module 'pkg' (a top-level package under roots '.') reaches no other module (its __init__.py imports nothing)" in err


# A new user's configurations that checked nothing and said `All checks passed!`.
@pytest.mark.parametrize(("text", "line", "what"), [
    # only entry_modules, without extends: no heavy module, no probe
    ("version: 1\nrocm_safety:\n  entry_modules: [pkg]\n", 2, "rocm_safety declares no heavy module (after extends)"),
    ("version: 1\nrocm_safety:\n  probes: {_has_module: null}\n", 2, "rocm_safety declares no heavy module (after extends)"),
    # a preset's heavy modules each removed
    ("version: 1\nrocm_safety:\n  heavy_modules: {tilelang: false}\n", 3, "rocm_safety declares no heavy module (after extends)"),
    ("version: 1\nextends: [rocm-safety]\nrocm_safety:\n  heavy_modules: []\n", 4, "heavy_modules is empty, so it flags nothing"),
    ("version: 1\nrocm_safety:\n  heavy_modules: {}\n", 3, "heavy_modules is empty, so it flags nothing"),
    ("version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\nignore: [no-pickle]\n", 5,
     "ignore: turns off every rule of the configuration (no-pickle)"),
    ("version: 1\nrocm_safety:\n  heavy_modules: [x]\nignore: [heavy-import-reachable, import-time-jit, trial-import-probe]\n",
     4, "ignore: turns off every rule of the configuration (heavy-import-reachable, import-time-jit, trial-import-probe)"),
])
def test_a_configuration_left_with_nothing_to_check_is_an_error_at_its_line(
    project: Project, text: str, line: int, what: str,
) -> None:
    project.config(text)
    project.write("pkg/__init__.py", "import pickle\nimport x\n")
    (error,) = _fails(project)
    assert error.startswith(f"import-policy: import-policy.yaml:{line}: {what}"), error


def test_an_ignore_that_leaves_a_rule_is_fine(project: Project) -> None:
    project.config("version: 1\nrocm_safety:\n  heavy_modules: [x]\nignore: [heavy-import-reachable]\n")
    project.write("pkg/__init__.py", "def f():\n    import x\n")
    assert project.run("check", "--no-cache")[0] == 0


def test_an_ignore_flag_that_leaves_nothing_is_a_usage_error(project: Project) -> None:
    project.config("version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n  - id: no-re\n    forbid: [re]\n")
    project.write("a.py", "import pickle\n")
    code, out, err = project.run("check", "--no-cache", "--ignore", "no-pickle,no-re")
    assert (code, out) == (2, "")
    assert err.startswith("import-policy: error: --ignore no-pickle,no-re leaves no rule in force")
    assert project.run("check", "--no-cache", "--ignore", "no-re")[0] == 1
