"""The contract kinds as a user meets them: where a broken chain is reported (the hook rule
included), suppressions, warm runs, configuration faults, `why A --to B`, `explain`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from import_policy.cli import main

POLICY = """version: 1
rules:
  - id: app-layers
    kind: layers
    containers: [app]
    layers: [high, mid, low]
"""
FILES = {
    "app/__init__.py": "",
    "app/high/__init__.py": "",
    "app/high/h.py": "X = 1\n",
    "app/mid/__init__.py": "",
    "app/mid/m.py": "import os\nfrom app.high import h\n",
    "app/low/__init__.py": "",
    "app/low/a.py": "from app.util import u\n",
    "app/util.py": "",
}


def project(root: Path, policy: str = POLICY, files: dict[str, str] | None = None) -> None:
    for path, text in {**FILES, **(files or {}), "import-policy.yaml": policy}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


def run(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    monkeypatch.chdir(root)
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_reported_at_the_import_that_begins_the_chain(tmp_path, monkeypatch, capsys) -> None:
    project(tmp_path, files={"app/util.py": "from app.mid import m\n"})
    code, out, _ = run(tmp_path, monkeypatch, capsys, "check", "--no-cache")
    assert code == 1
    assert out.splitlines()[:2] == [
        "app/low/a.py:1:6: app-layers `app.low` must not import `app.mid` (a lower layer imports a higher one): "
        "app.low.a -> app.util -> app.mid.m (app/low/a.py:1, app/util.py:1)",
        "app/mid/m.py:2:22: app-layers `app.mid` must not import `app.high` (a lower layer imports a higher one): "
        "app.mid.m -> app.high.h (app/mid/m.py:2)",
    ]


def test_a_batch_naming_a_file_on_the_chain_reports_at_its_link(tmp_path, monkeypatch, capsys) -> None:
    """The hook rule: the commit that adds `from app.mid import m` to util.py is blocked there."""
    project(tmp_path, files={"app/util.py": "from app.mid import m\n", "app/mid/m.py": ""})
    code, out, _ = run(tmp_path, monkeypatch, capsys, "check", "--no-cache", "app/util.py")
    assert code == 1
    assert out.startswith("app/util.py:1:1: app-layers this import makes `app.low.a` reach `app.mid.m` (app/low/a.py:1)")
    # the chain's first file named too: one report, at the chain's beginning
    code, out, _ = run(tmp_path, monkeypatch, capsys, "check", "--no-cache", "app/util.py", "app/low/a.py")
    assert [line.split(":")[0] for line in out.splitlines()[:-1]] == ["app/low/a.py"]


def test_a_suppression_at_the_chain_s_beginning_silences_it(tmp_path, monkeypatch, capsys) -> None:
    project(tmp_path, files={
        "app/util.py": "from app.mid import m\n", "app/mid/m.py": "",
        "app/low/a.py": "from app.util import u  # import-policy: ignore[app-layers]\n",
    })
    assert run(tmp_path, monkeypatch, capsys, "check", "--no-cache")[0] == 0


def test_warm_runs_give_the_cold_answer(tmp_path, monkeypatch, capsys) -> None:
    project(tmp_path, files={"app/util.py": "from app.mid import m\n"})
    cold = run(tmp_path, monkeypatch, capsys, "check", "--no-cache", "--format", "json")[1]
    first = run(tmp_path, monkeypatch, capsys, "check", "--format", "json")[1]
    second = run(tmp_path, monkeypatch, capsys, "check", "--format", "json")[1]
    assert json.loads(cold) == json.loads(first) == json.loads(second)
    (tmp_path / "app/util.py").write_text("\n")  # the chain is cut: the warm run sees it
    assert run(tmp_path, monkeypatch, capsys, "check")[1].count("app-layers") == 1


@pytest.mark.parametrize(
    ("extra", "line", "says"),
    [
        ('    ignore_imports: ["app.low"]\n', 7, "is not an import expression"),
        ('    ignore_imports: ["app.low.* -> app.***"]\n', 7, "is not a module expression"),
        ("    scope: anywhere\n", 7, "scope must be one of: module, any"),
        ("    exhaustive: 3\n", 7, "exhaustive must be true or false"),
    ],
)
def test_configuration_faults_are_errors_at_their_line(tmp_path, monkeypatch, capsys, extra, line, says) -> None:
    project(tmp_path, POLICY + extra)
    code, _, err = run(tmp_path, monkeypatch, capsys, "check", "--no-cache")
    assert code == 2
    assert f"import-policy.yaml:{line}:" in err and says in err


@pytest.mark.parametrize(
    ("rule", "line", "says"),
    [
        ("    kind: layers\n    layers: [\"app.a | app.b : app.c\"]\n", 5, "mixes independent"),
        ("    kind: layers\n    layers: [app.high]\n    exhaustive: true\n", 6, "exhaustive needs containers"),
        ("    kind: acyclic\n    packages: [app]\n    depth: 0\n", 6, "depth must be `all` or a number"),
        ("    kind: independence\n    modules: [app.high, app.nothing]\n", 5, "'app.nothing' is not a module of the project"),
        ("    kind: protected\n    modules: [\"app.*.nothing\"]\n", 5, "matches no module"),
        ("    kind: layers\n    containers: [app.nothing]\n    layers: [x]\n", 5, "container 'app.nothing' is not a module"),
    ],
)
def test_contract_faults(tmp_path, monkeypatch, capsys, rule, line, says) -> None:
    project(tmp_path, "version: 1\nrules:\n  - id: c\n" + rule)
    code, _, err = run(tmp_path, monkeypatch, capsys, "check", "--no-cache")
    assert code == 2, err
    assert f"import-policy.yaml:{line}:" in err and says in err


def test_why_to_prints_the_chains_between_two_modules(tmp_path, monkeypatch, capsys) -> None:
    project(tmp_path, files={"app/util.py": "from app.mid import m\n"})
    code, out, _ = run(tmp_path, monkeypatch, capsys, "why", "app.low", "--to", "app.mid")
    assert code == 0
    assert out == (
        "app.low.a -> app.mid (2 links):\n"
        "  app/low/a.py:1: app.low.a -> app.util (from app.util import u)\n"
        "  app/util.py:1: app.util -> app.mid.m (from app.mid import m)\n"
    )
    code, _, err = run(tmp_path, monkeypatch, capsys, "why", "app.low", "--to", "app.nothing")
    assert code == 2 and "app.nothing is not a module of this project" in err


def test_explain_shows_the_contract_in_full(tmp_path, monkeypatch, capsys) -> None:
    project(tmp_path, POLICY + '    ignore_imports: ["app.low.a -> app.util"]\n    scope: any\n')
    code, out, _ = run(tmp_path, monkeypatch, capsys, "explain", "app-layers")
    assert code == 0
    for line in ("  layers:        (top first)", "    high", "  containers:    app", "  ignore_imports: app.low.a -> app.util",
                 "  scope:         any (every import statement, function bodies included (import-linter's reading))"):
        assert line in out.splitlines()


def test_type_checking_imports_count_only_when_asked(tmp_path, monkeypatch, capsys) -> None:
    files = {"app/low/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.high import h\n"}
    project(tmp_path, files=files)
    assert run(tmp_path, monkeypatch, capsys, "check", "--no-cache")[1].count("app.low.a") == 0
    for scope in ("module", "any"):
        project(tmp_path, POLICY + f"    type_checking: check\n    scope: {scope}\n", files)
        assert run(tmp_path, monkeypatch, capsys, "check", "--no-cache")[1].count("app.low.a -> app.high") == 1, scope


@pytest.mark.parametrize(("platform", "broken"), [("any", True), ("rocm", True), ("cuda", False), ("cpu", True)])
def test_a_contract_is_judged_on_its_platform(tmp_path, monkeypatch, capsys, platform: str, broken: bool) -> None:
    """A profile's names decide the branches a contract reads: `torch.version.hip` is None on
    CUDA, set on ROCm; a CPU wheel's `torch.cuda.is_available()` is false."""
    low = "import torch\nif torch.version.hip or not torch.cuda.is_available():\n    from app.mid import m\n"
    project(tmp_path, policy=POLICY + f"    platform: {platform}\n", files={"app/low/a.py": low, "app/mid/m.py": ""})
    code, out, err = run(tmp_path, monkeypatch, capsys, "check", "--no-cache")
    assert (code, "app/low/a.py:3:" in out) == ((1, True) if broken else (0, False)), out + err


def test_an_unknown_platform_is_a_configuration_error_at_its_line(tmp_path, monkeypatch, capsys) -> None:
    project(tmp_path, policy=POLICY + "    platform: nosuch\n")
    code, _, err = run(tmp_path, monkeypatch, capsys, "check", "--no-cache")
    assert code == 2
    assert "import-policy.yaml:7" in err and "unknown platform 'nosuch'" in err


def test_a_scope_any_graph_reads_import_statements_alone(tmp_path, monkeypatch, capsys) -> None:
    """Under `scope: any` an edge is an import statement: each file's record is its imports,
    walked without reading an expression, and a file that never spells `import` is not parsed;
    the findings are those of the whole extraction (`scope: module` reads it all)."""
    from import_policy.facts.cpython import from_ast

    files = {
        "app/util.py": "if TYPE_CHECKING:\n    from app.mid import m\ndef f():\n    from app.high import h\n",
        "app/low/plain.py": "X = [1, 2]\n",
    }
    project(tmp_path, POLICY + "    scope: any\n    type_checking: check\n", files)
    whole = run(tmp_path, monkeypatch, capsys, "check", "--no-cache")
    assert whole[0] == 1 and "app.low.a -> app.util -> app.mid.m" in whole[1]
    parsed: list[str] = []
    collect = from_ast._collect

    def lean(source: bytes, path: str, *args: object, **kwargs: object) -> object:
        parsed.append(path)
        return collect(source, path, *args, **kwargs)  # type: ignore[arg-type]

    def refuse(self: object, node: object) -> None:
        raise AssertionError("an expression was read")

    monkeypatch.setattr(from_ast, "_collect", lean)
    monkeypatch.setattr(from_ast._Collector, "expression", refuse)
    monkeypatch.setattr(from_ast._ImportsOnly, "expression", lambda self, node: None)
    assert run(tmp_path, monkeypatch, capsys, "check", "--no-cache") == whole
    assert "app/util.py" in parsed and "app/low/plain.py" not in parsed
