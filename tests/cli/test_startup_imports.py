"""Start-up imports only what the command needs: `--version` and `--help` import none of the
policy's records, and a pre-commit batch with nothing to parse imports none of the modules
that only other paths use (the contract kinds, the relative-imports kind, the stdlib's
`platform`, `symtable`, `difflib`, `shlex`). Python is the oracle: the modules are read from
`sys.modules` of a real run in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = """\
import sys
from import_policy.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exit_:
    code = exit_.code
print()
print(code, ' '.join(sorted(sys.modules)))
"""

# What `--version`, `--help` and a usage error may import of the package: the command line,
# the exit codes, the configuration errors' class and the names of the output formats.
LIGHT = {
    "import_policy", "import_policy.cli", "import_policy.cache", "import_policy.commands",
    "import_policy.policy", "import_policy.policy.errors", "import_policy.report",
    "import_policy.discovery", "import_policy.discovery.probe",  # is a mistyped command a path?
}

# Never imported by a batch that parses nothing under a policy without these rules.
UNUSED_BY_A_BATCH = (
    "import_policy.kinds.contracts", "import_policy.kinds.contracts.kinds", "import_policy.kinds.contracts.layers",
    "import_policy.kinds.relative_imports", "platform", "symtable", "difflib", "shlex", "libcst",
)

ROCM = """\
version: 1
extends: [rocm-safety]
rocm_safety:
  entry_modules: [pkg]
rules:
  - id: no-pickle
    forbid: [pickle]
"""


def _modules(root: Path, *argv: str) -> tuple[str, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )
    code, _, modules = done.stdout.strip().splitlines()[-1].partition(" ")
    return code, set(modules.split())


def test_version_and_help_import_no_records(tmp_path: Path) -> None:
    for argv in (["--version"], ["--help"], ["check", "--help"], ["chek"]):
        code, modules = _modules(tmp_path, *argv)
        assert code == ("2" if argv == ["chek"] else "0"), argv
        mine = {m for m in modules if m.split(".")[0] == "import_policy"}
        assert mine <= LIGHT, (argv, sorted(mine - LIGHT))
        assert "dataclasses" not in modules and "platform" not in modules, argv


def test_a_batch_imports_only_what_it_uses(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text(ROCM, encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from . import a\n", encoding="utf-8")
    (tmp_path / "pkg" / "a.py").write_text("import os\nprint(os.sep)\n", encoding="utf-8")
    (tmp_path / "pkg" / "b.py").write_text("X = 1\n", encoding="utf-8")
    assert _modules(tmp_path, "check")[0] == "0"  # the whole tree: the caches warm, as after a pre-commit run
    code, modules = _modules(tmp_path, "check", "pkg/a.py", "pkg/b.py")
    assert code == "0"
    assert "import_policy.kinds.registry" in modules  # the batch did check the files
    assert not modules & set(UNUSED_BY_A_BATCH), sorted(modules & set(UNUSED_BY_A_BATCH))


def test_the_registry_names_every_contract_kind() -> None:
    """The registry names the contract kinds without importing them; the names are those
    their modules register."""
    from import_policy.kinds.contracts.kinds import CONTRACT_KINDS
    from import_policy.kinds.registry import CONTRACT_NAMES, KINDS, PROJECT_KINDS

    assert CONTRACT_NAMES == tuple(CONTRACT_KINDS)
    assert all(PROJECT_KINDS[name] is CONTRACT_KINDS[name] for name in CONTRACT_NAMES)
    assert list(KINDS) == ["import", "include", "token", "relative-imports", "import-time", *CONTRACT_NAMES]
    assert all(KINDS[name] is PROJECT_KINDS[name] for name in PROJECT_KINDS)
    assert "nope" not in KINDS and KINDS.get("nope") is None


def test_the_command_line_offers_every_document_format() -> None:
    from import_policy.report import DOCUMENT_FORMATS
    from import_policy.report.formats import FORMATS

    assert DOCUMENT_FORMATS == tuple(FORMATS)
