"""Fuzz: real files (src/import_policy, examples/) mutated with byte flips, truncation, NUL
bytes, stray \\r, invalid UTF-8, mixed tabs, splices and BOMs. Each ends as diagnostics (a
`syntax-error` one when CPython cannot compile it and a rule needed the file), never a
traceback or exit 2; `--fix` writes only a file that still parses."""

from __future__ import annotations

import ast
import json
import os
import random
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from import_policy.cli import main

from fuzz_support import MUTATION_POLICY, MUTATIONS, SEED_FILES, mutate

pytestmark = pytest.mark.fuzz

SETTINGS = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)


def compiles(data: bytes) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, "mod.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def needed(root: Path, data: bytes) -> bool:
    """Whether a rule of the policy could report in the file: only then is it parsed."""
    from import_policy.config.load import load
    from import_policy.pipeline.plan import Plan, Selection

    plan = Plan(load(root / "import-policy.yaml", root).policy, Selection())
    rules = plan.rules_for("mod.py")
    return bool(rules) and plan.needs(rules).could_report(data, "mod")


def check_mutant(data: bytes, captured: pytest.CaptureFixture[bytes]) -> None:
    """`captured` in bytes: `--diff` writes the file's own bytes, in whatever encoding it has."""

    class Text:
        def readouterr(self) -> tuple[str, str]:
            out, err = captured.readouterr()
            return out.decode("utf-8", "replace"), err.decode("utf-8", "replace")

    capsys = Text()
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "import-policy.yaml").write_text(MUTATION_POLICY, encoding="utf-8")
        (root / "gw.py").write_text("import pathlib\nimport tilelang\n", encoding="utf-8")  # the gateway it names
        target = root / "mod.py"
        target.write_bytes(data)
        os.chdir(root)
        try:
            capsys.readouterr()
            code = main(["check", "--format", "json", "mod.py"])
            out, err = capsys.readouterr()
            assert code in (0, 1), err
            assert "internal error" not in err
            rules = {d["rule"] for d in json.loads(out)["diagnostics"]}
            if not compiles(data) and needed(root, data):
                assert "syntax-error" in rules, err
            code = main(["check", "--diff", "mod.py"])
            _, err = capsys.readouterr()
            assert code in (0, 1) and "internal error" not in err, err
            code = main(["check", "--fix", "--unsafe-fixes", "mod.py"])
            _, err = capsys.readouterr()
            assert code in (0, 1) and "internal error" not in err, err
            after = target.read_bytes()
            if after != data:  # written only if it still parses
                assert compiles(after), after
        finally:
            os.chdir(old)


@SETTINGS
@given(
    seed_file=st.sampled_from(SEED_FILES),
    kinds=st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3),
    seed=st.integers(0, 2**32 - 1),
)
def test_mutated_files_end_as_diagnostics(
    seed_file: Path, kinds: list[str], seed: int, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    rng = random.Random(seed)
    data = seed_file.read_bytes()
    for kind in kinds:
        data = mutate(data, kind, rng)
    check_mutant(data, capsysbinary)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\0",
        b"import os\0\n",
        b"\xff\xfe\x00\x00",
        b"# -*- coding: latin-1 -*-\nimport re\nx = '\xe9'\n",
        b"# -*- coding: nonsense -*-\nimport re\n",
        b"\xef\xbb\xbf# -*- coding: latin-1 -*-\nimport re\n",
        b"import re\r\rimport os\r",
        b"if x:\n\timport re\n        import os\n",
        b"import re\n\x0c\nimport pathlib\n",
        b"\\\n",
        b"import re; import os \\\n",
    ],
    ids=lambda data: repr(data[:24]),
)
def test_known_awkward_inputs(data: bytes, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    check_mutant(data, capsysbinary)
