"""argv without a command: `import-policy --fix` and `import-policy .` name the `check` they
meant, as git and ruff name the command they would have run (ruff: `tip: a similar
subcommand exists: 'check'`). Always exit 2, with the usage line, never a run."""

from __future__ import annotations

import pytest

from conftest import Project, snapshot

USAGE = "usage: import-policy [-h] [--version] COMMAND ...\n"


@pytest.fixture
def tree(project: Project) -> Project:
    project.config("rules:\n  - id: no-re\n    forbid: [re]\n")
    project.write("a.py", "import re\n")
    return project


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--fix"], "`--fix` is an option of `check`; did you mean `import-policy check --fix`?"),
        (["--select", "no-re", "a.py"], "`--select` is an option of `check`; did you mean `import-policy check --select no-re a.py`?"),
        (["--diff"], "`--diff` is an option of `check`; did you mean `import-policy check --diff`?"),
        (["."], "'.' is not a command; did you mean `import-policy check .`?"),
        (["a.py"], "'a.py' is not a command; did you mean `import-policy check a.py`?"),
        (["src/missing.py"], "'src/missing.py' is not a command; did you mean `import-policy check src/missing.py`?"),
        (["chek", "."], "unknown command 'chek'; did you mean `import-policy check .`?"),
        (["rule"], "unknown command 'rule'; did you mean `import-policy rules`?"),
        (["--config", "import-policy.yaml", "rules"], "options go after the command; did you mean `import-policy rules --config import-policy.yaml`?"),
        ([], "the following arguments are required: COMMAND (to check the current folder: `import-policy check`)"),
    ],
)
def test_a_missing_command_is_named(tree: Project, argv: list[str], said: str) -> None:
    code, out, err = tree.run(*argv)
    assert (code, out) == (2, "")
    assert err == f"{USAGE}import-policy: error: {said}\n"


def test_the_hints_as_a_user_sees_them(tree: Project) -> None:
    shown = "".join(f"$ import-policy {' '.join(argv)}\n{tree.run(*argv)[2]}" for argv in (["--fix"], ["."]))
    snapshot("command-hints.stderr", shown)


def test_nothing_like_a_command_keeps_argparses_word(tree: Project) -> None:
    code, _, err = tree.run("frobnicate")
    assert code == 2 and "invalid choice: 'frobnicate'" in err
    assert tree.run("check", ".")[0] == 1  # and the real command still runs
