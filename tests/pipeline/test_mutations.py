"""Fuzz: real files (src/import_policy, examples/) and the awkward spellings of
tests/corner_cases.py mutated with byte flips, truncation, NUL bytes, stray \\r, invalid UTF-8,
mixed tabs, splices and BOMs. Each ends as diagnostics, never a traceback or exit 2, and the
same diagnostics as the read-everything path (no prefilter) where CPython compiles it; where
it does not, a `syntax-error` whenever Python's own tokenizer shows an import of a forbidden
name; `--fix` writes only a file that still parses."""

from __future__ import annotations

import ast
import io
import json
import os
import random
import tempfile
import tokenize
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from import_policy.cli import main

from corner_cases import TRICKY_BYTES
from fuzz_support import MUTATION_POLICY, MUTATIONS, SEED_FILES, mutate

SEEDS = [path.read_bytes() for path in SEED_FILES] + TRICKY_BYTES

pytestmark = pytest.mark.fuzz

SETTINGS = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "20")),  # the fast subset's share: about a second
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
MANY = settings(SETTINGS, max_examples=int(os.environ.get("FUZZ_EXAMPLES", "200")))


def compiles(data: bytes) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, "mod.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


FORBIDDEN_HEADS = frozenset({"re", "tilelang", "pathlib", "pickle"})  # forbidden by MUTATION_POLICY on their own


def spells_forbidden_import(data: bytes) -> bool:
    """Whether Python's tokenizer, on the text as Python decodes it, reads `import X` or
    `from X` with X the top package of a forbidden name (up to where tokenizing fails)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return False  # Python cannot decode it: it runs nothing from it
    previous = ""
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.NL, tokenize.COMMENT):
                continue
            if token.type == tokenize.NAME and previous in ("import", "from") and token.string in FORBIDDEN_HEADS:
                return True
            previous = token.string if token.type == tokenize.NAME else ""
    except (tokenize.TokenError, SyntaxError, ValueError):
        pass
    return False


def diagnostics(root: Path, data: bytes, prefilter: bool) -> list[tuple[str, int, int]]:
    from import_policy.policy.load import load
    from import_policy.discovery.files import SourceFile
    from import_policy.pipeline.engine import run
    from import_policy.pipeline.plan import Plan, Selection

    plan = Plan(load(root / "import-policy.yaml", root).policy, Selection(), prefilter=prefilter)
    found = run(plan, [SourceFile(root / "mod.py", "mod.py", "python")], read=lambda _file: data).diagnostics
    return [(d.rule, d.line, d.column) for d in found]


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
            everything = diagnostics(root, data, prefilter=False)
            if compiles(data):
                assert diagnostics(root, data, prefilter=True) == everything
            else:
                assert "syntax-error" in {rule for rule, _, _ in everything}
                if spells_forbidden_import(data):
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


MUTANTS = dict(
    original=st.sampled_from(SEEDS), kinds=st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3),
    seed=st.integers(0, 2**32 - 1),
)


@SETTINGS
@given(**MUTANTS)
def test_mutated_files_end_as_diagnostics(
    original: bytes, kinds: list[str], seed: int, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    _mutated(original, kinds, seed, capsysbinary)


@pytest.mark.slow
@MANY
@given(**MUTANTS)
def test_mutated_files_end_as_diagnostics_many(
    original: bytes, kinds: list[str], seed: int, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    _mutated(original, kinds, seed, capsysbinary)


def _mutated(original: bytes, kinds: list[str], seed: int, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    rng = random.Random(seed)
    data = original
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


@pytest.mark.parametrize("data", TRICKY_BYTES, ids=[repr(s[:24]) for s in TRICKY_BYTES])
def test_tricky_spellings_as_they_are(data: bytes, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    check_mutant(data, capsysbinary)


def test_the_tokenizer_witness() -> None:
    assert spells_forbidden_import(b"import pickle\nx = (\n")
    assert spells_forbidden_import(b"# coding: utf-7\n+AGkAbQBwAG8AcgB0ACAAcABpAGMAawBsAGU-\nx = (\n")
    assert not spells_forbidden_import(b"import os_extra\nx = (\n")
    assert not spells_forbidden_import(b"# import pickle\nx = '''\n")
