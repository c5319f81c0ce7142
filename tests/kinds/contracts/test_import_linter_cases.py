"""Cases from import-linter's own tests (tests/unit/contracts/, release 2.12), each a graph of
imports written out as a package, checked with `scope: any` (import-linter's reading): the
same verdict, and the same illegal chains, as import-linter's test expects. Where
`scope: module` reads the same package differently (Python runs a parent package's `__init__`
before its submodule; an import in a function body does not run at import time), the case
says so and checks that answer too (docs/rules.md, "Differences from import-linter")."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from import_policy.cli import main

Imports = Iterable[tuple[str, str]]


def build(root: Path, modules: Iterable[str], imports: Imports, in_function: Iterable[tuple[str, str]] = ()) -> None:
    """Every module as a file (a package where another module is under it), each import at its
    importer's module level (`in_function`: inside a function body)."""
    names = set(modules) | {m for pair in [*imports, *in_function] for m in pair}
    names |= {".".join(n.split(".")[:i]) for n in list(names) for i in range(1, n.count(".") + 1)}
    packages = {".".join(n.split(".")[:-1]) for n in names if "." in n}
    body: dict[str, list[str]] = {n: [] for n in names}
    for importer, imported in imports:
        body[importer].append(f"import {imported}")
    for importer, imported in in_function:
        body[importer].append(f"def f_{len(body[importer])}():\n    import {imported}")
    for name in names:
        parts = name.split(".")
        path = root.joinpath(*parts, "__init__.py") if name in packages else root.joinpath(*parts[:-1], parts[-1] + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(body[name]) + "\n", encoding="utf-8")


def check(root: Path, contract: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    (root / "import-policy.yaml").write_text("version: 1\nrules:\n  - id: contract\n" + contract, encoding="utf-8")
    monkeypatch.chdir(root)
    capsys.readouterr()
    code = main(["check", "--no-cache", "--format", "json"])
    out = json.loads(capsys.readouterr().out)["diagnostics"]
    assert code == (1 if any(d["severity"] == "error" for d in out) else 0)
    return out


def chains(found: list[dict]) -> set[tuple[str, ...]]:
    return {tuple(d["chain"]) for d in found if d["rule"] == "contract" and d.get("chain")}


# --- layers (TestLayerContractSingleContainers, ...SiblingLayers, ...MultipleContainers,
#     ...PopulatesMetadata, TestIgnoreImports) ----------------------------------------------

SINGLE_MODULES = (
    "mypackage.high.green", "mypackage.high.blue", "mypackage.high.yellow.alpha", "mypackage.medium.orange.beta",
    "mypackage.medium.red", "mypackage.low.black", "mypackage.low.white.gamma",
)
SINGLE_LEGAL = (
    ("mypackage.high.green", "mypackage.medium.orange"),
    ("mypackage.high.green", "mypackage.low.white.gamma"),
    ("mypackage.medium.orange", "mypackage.low.white"),
    ("mypackage.high.blue", "mypackage.utils"),
    ("mypackage.utils", "mypackage.medium.red"),
)
SINGLE = "    kind: layers\n    containers: [mypackage]\n    layers: [high, medium, low]\n    scope: {scope}\n"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        pytest.param((), set(), id="no_illegal_imports_means_contract_is_kept"),
        pytest.param(
            (("mypackage.medium.orange", "mypackage.high.green"),),
            {("mypackage.medium.orange", "mypackage.high.green")}, id="illegal_child_imports_means_contract_is_broken",
        ),
        pytest.param(
            (("mypackage.low.white.gamma", "mypackage.medium.red"),),
            {("mypackage.low.white.gamma", "mypackage.medium.red")}, id="illegal_grandchild_to_child_means_contract_is_broken",
        ),
    ],
)
@pytest.mark.parametrize("scope", ["any", "module"])
def test_layers_single_container(tmp_path, monkeypatch, capsys, extra, expected, scope) -> None:
    build(tmp_path, SINGLE_MODULES, (*SINGLE_LEGAL, *extra))
    assert chains(check(tmp_path, SINGLE.format(scope=scope), monkeypatch, capsys)) == expected


@pytest.mark.parametrize("independent", [True, False])
@pytest.mark.parametrize("container", [True, False])
def test_layers_imports_between_sibling_modules(tmp_path, monkeypatch, capsys, independent, container) -> None:
    build(
        tmp_path, ("mypackage.high", "mypackage.medium_a", "mypackage.medium_b", "mypackage.medium_c", "mypackage.low"),
        (("mypackage.high.green", "mypackage.medium.orange"), ("mypackage.utils", "mypackage.medium.red"),
         ("mypackage.medium_a.blue", "mypackage.medium_b.red")),
    )
    prefix = "" if container else "mypackage."
    sep = " | " if independent else " : "
    middle = sep.join(f"{prefix}medium_{x}" for x in "abc")
    contract = (
        "    kind: layers\n    scope: any\n" + ("    containers: [mypackage]\n" if container else "")
        + f'    layers: ["{prefix}high", "{middle}", "{prefix}low"]\n'
    )
    found = chains(check(tmp_path, contract, monkeypatch, capsys))
    assert found == ({("mypackage.medium_a.blue", "mypackage.medium_b.red")} if independent else set())


MULTI_MODULES = (
    "mypackage.one.high.green", "mypackage.one.high.blue", "mypackage.one.high.yellow.alpha",
    "mypackage.one.medium.orange.beta", "mypackage.one.medium.red", "mypackage.one.low.black",
    "mypackage.one.low.white.gamma", "mypackage.two.high.red.alpha", "mypackage.two.medium.green.beta",
    "mypackage.two.low.blue.gamma", "mypackage.three.high.white", "mypackage.three.medium.purple",
    "mypackage.three.low.cyan", "mypackage.noncontainer.blue",
)
MULTI_LEGAL = (
    ("mypackage.one.high.green", "mypackage.one.medium.orange"),
    ("mypackage.one.high.green", "mypackage.one.low.white.gamma"),
    ("mypackage.one.medium.orange", "mypackage.one.low.white"),
    ("mypackage.two.high.red.alpha", "mypackage.two.medium.green.beta"),
    ("mypackage.two.high.red.alpha", "mypackage.two.low.blue.gamma"),
    ("mypackage.two.medium.green.beta", "mypackage.two.low.blue.gamma"),
    ("mypackage.three.high.white", "mypackage.three.medium.purple"),
    ("mypackage.three.high.white", "mypackage.three.low.cyan"),
    ("mypackage.three.medium.purple", "mypackage.three.low.cyan"),
)
MULTI = (
    "    kind: layers\n    scope: any\n    containers: [mypackage.one, mypackage.two, mypackage.three]\n"
    "    layers: [high, medium, low]\n"
)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        pytest.param((), set(), id="no_illegal_imports_means_contract_is_kept"),
        pytest.param(
            (("mypackage.two.medium.green.beta", "mypackage.one.high.green"),
             ("mypackage.three.low.cyan", "mypackage.two.high.red.alpha")),
            set(), id="imports_from_low_to_high_but_in_different_container_doesnt_break_contract",
        ),
        pytest.param(
            (("mypackage.three.low.cyan", "mypackage.three.high.white"),),
            {("mypackage.three.low.cyan", "mypackage.three.high.white")},
            id="illegal_grandchild_imports_means_contract_is_broken",
        ),
        pytest.param(
            (("mypackage.one.medium.orange", "mypackage.noncontainer.blue"),
             ("mypackage.noncontainer.blue", "mypackage.two.high.red.alpha"),
             ("mypackage.two.high.red.alpha", "mypackage.one.high.green")),
            {("mypackage.one.medium.orange", "mypackage.noncontainer.blue", "mypackage.two.high.red.alpha",
              "mypackage.one.high.green")},
            id="import_via_noncontainer_means_contract_is_broken",
        ),
    ],
)
def test_layers_multiple_containers(tmp_path, monkeypatch, capsys, extra, expected) -> None:
    build(tmp_path, MULTI_MODULES, (*MULTI_LEGAL, *extra))
    assert chains(check(tmp_path, MULTI, monkeypatch, capsys)) == expected


METADATA = (
    ("mypackage.low.white.gamma", "mypackage.utils.foo"),
    ("mypackage.utils.foo", "mypackage.utils.bar"),
    ("mypackage.utils.bar", "mypackage.high.yellow.alpha"),
    ("mypackage.medium.orange.beta", "mypackage.high.blue"),
    ("mypackage.low.black", "mypackage.utils.baz"),
    ("mypackage.utils.baz", "mypackage.medium.red"),
)


def test_layers_populates_metadata(tmp_path, monkeypatch, capsys) -> None:
    """Three illegal dependencies, one route each; a chain through a module in no layer counts."""
    build(tmp_path, SINGLE_MODULES, METADATA)
    found = check(tmp_path, SINGLE.format(scope="any"), monkeypatch, capsys)
    assert chains(found) == {
        ("mypackage.low.white.gamma", "mypackage.utils.foo", "mypackage.utils.bar", "mypackage.high.yellow.alpha"),
        ("mypackage.low.black", "mypackage.utils.baz", "mypackage.medium.red"),
        ("mypackage.medium.orange.beta", "mypackage.high.blue"),
    }
    # reported at the import that begins each chain, its file, line and column
    first = next(d for d in found if d["chain"][0] == "mypackage.low.white.gamma")
    assert (first["path"], first["line"], first["column"]) == ("mypackage/low/white/gamma.py", 1, 8)


IGNORE_GRAPH = (
    ("mypackage.low.black", "mypackage.medium.orange"),
    ("mypackage.low.white.gamma", "mypackage.utils.foo"),
    ("mypackage.utils.foo", "mypackage.utils.bar"),
    ("mypackage.utils.bar", "mypackage.high.yellow.alpha"),
)


@pytest.mark.parametrize(
    "expression",
    [
        "mypackage.low.black -> mypackage.medium.orange", "*.low.black -> mypackage.medium.orange",
        "**.low.black -> mypackage.medium.orange", "mypackage.*.black -> mypackage.medium.orange",
        "mypackage.**.black -> mypackage.medium.orange", "mypackage.low.* -> mypackage.medium.orange",
        "mypackage.low.** -> mypackage.medium.orange", "mypackage.low.black -> *.medium.orange",
        "mypackage.low.black -> **.medium.orange", "mypackage.low.black -> mypackage.*.orange",
        "mypackage.low.black -> mypackage.**.orange", "mypackage.low.black -> mypackage.medium.*",
        "mypackage.low.black -> mypackage.medium.**", "mypackage.*.black -> mypackage.*.orange",
        "mypackage.**.black -> mypackage.**.orange", "mypackage.*.* -> mypackage.*.*", "mypackage.** -> mypackage.**",
    ],
)
def test_layers_one_ignored_from_each_chain_means_contract_is_kept(tmp_path, monkeypatch, capsys, expression) -> None:
    build(tmp_path, SINGLE_MODULES, IGNORE_GRAPH)
    contract = SINGLE.format(scope="any") + f'    ignore_imports: ["{expression}", "mypackage.utils.foo -> mypackage.utils.bar"]\n'
    assert chains(check(tmp_path, contract, monkeypatch, capsys)) == set()


def test_layers_ignore_only_one_chain_should_fail_because_of_the_other(tmp_path, monkeypatch, capsys) -> None:
    build(tmp_path, SINGLE_MODULES, IGNORE_GRAPH)
    contract = SINGLE.format(scope="any") + '    ignore_imports: ["mypackage.utils.bar -> mypackage.high.yellow.alpha"]\n'
    assert chains(check(tmp_path, contract, monkeypatch, capsys)) == {("mypackage.low.black", "mypackage.medium.orange")}


@pytest.mark.parametrize("alerting", ["warning", "error", "none"])
def test_layers_an_ignore_that_matches_nothing_is_told_at_its_line(tmp_path, monkeypatch, capsys, alerting) -> None:
    """import-linter's `unmatched_ignore_imports_alerting` (its default is error; here warning)."""
    build(tmp_path, SINGLE_MODULES, SINGLE_LEGAL)
    contract = (
        SINGLE.format(scope="any") + '    ignore_imports: ["mypackage.nonexistent.* -> mypackage.high"]\n'
        + f"    unmatched_ignore_imports: {alerting}\n"
    )
    found = [d for d in check(tmp_path, contract, monkeypatch, capsys) if "matches no import" in d["message"]]
    if alerting == "none":
        assert found == []
    else:
        assert [(d["path"], d["line"], d["severity"]) for d in found] == [("import-policy.yaml", 8, alerting)]


@pytest.mark.parametrize(("optional", "fails"), [(True, False), (False, True)])
def test_layers_optional_layers(tmp_path, monkeypatch, capsys, optional, fails) -> None:
    build(tmp_path, ("mypackage.high", "mypackage.low"), ())
    medium = "(medium)" if optional else "medium"
    contract = f'    kind: layers\n    containers: [mypackage]\n    layers: [high, "{medium}", low]\n'
    (tmp_path / "import-policy.yaml").write_text("version: 1\nrules:\n  - id: contract\n" + contract, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache"]) == (2 if fails else 0)
    if fails:
        assert "import-policy.yaml:6: rule 'contract': layer 'mypackage.medium' (in container 'mypackage'; `(name)` marks" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("ignores", "undeclared"),
    [((), {"mypackage.blue", "mypackage.green"}), (("green",), {"mypackage.blue"}), (("blue", "green"), set())],
)
def test_layers_exhaustive(tmp_path, monkeypatch, capsys, ignores, undeclared) -> None:
    """TestExhaustiveContracts: every child of a container is in a layer or ignored."""
    build(tmp_path, ("mypackage.high", "mypackage.medium", "mypackage.low", "mypackage.blue", "mypackage.green"), ())
    contract = (
        "    kind: layers\n    containers: [mypackage]\n    layers: [high, medium, low]\n    exhaustive: true\n"
        f"    exhaustive_ignores: [{', '.join(ignores)}]\n"
    )
    found = check(tmp_path, contract, monkeypatch, capsys)
    assert {d["chain"][0] for d in found} == undeclared


# --- independence (TestIndependenceContract) ------------------------------------------------

INDEPENDENT_MODULES = (
    "mypackage.blue.alpha", "mypackage.blue.beta.foo", "mypackage.green", "mypackage.yellow.gamma",
    "mypackage.yellow.delta", "mypackage.other",
)
INDEPENDENCE = "    kind: independence\n    scope: any\n    modules: [{modules}]\n"


@pytest.mark.parametrize(
    ("imports", "modules", "expected"),
    [
        pytest.param((("mypackage.blue", "mypackage.other"), ("mypackage.green", "mypackage.other")),
                     "mypackage.blue, mypackage.green, mypackage.yellow", set(), id="when_modules_are_independent"),
        pytest.param((), "mypackage.*", set(), id="when_wildcard_modules_are_independent"),
        pytest.param((("mypackage.blue", "mypackage.green"),), "mypackage.*",
                     {("mypackage.blue", "mypackage.green")}, id="when_wildcard_modules_are_not_independent"),
        pytest.param((("mypackage.blue", "mypackage.green"),), "mypackage.blue, mypackage.green, mypackage.yellow",
                     {("mypackage.blue", "mypackage.green")}, id="when_root_imports_root_directly"),
        pytest.param((("mypackage.blue", "mypackage.other"), ("mypackage.other", "mypackage.green")),
                     "mypackage.blue, mypackage.green, mypackage.yellow",
                     {("mypackage.blue", "mypackage.other", "mypackage.green")}, id="when_root_imports_root_indirectly"),
        pytest.param((("mypackage.blue.alpha", "mypackage.green"), ("mypackage.yellow.gamma", "mypackage.blue.beta.foo")),
                     "mypackage.blue, mypackage.green, mypackage.yellow",
                     {("mypackage.blue.alpha", "mypackage.green"), ("mypackage.yellow.gamma", "mypackage.blue.beta.foo")},
                     id="chains_between_descendants"),
    ],
)
def test_independence(tmp_path, monkeypatch, capsys, imports, modules, expected) -> None:
    build(tmp_path, INDEPENDENT_MODULES, imports)
    assert chains(check(tmp_path, INDEPENDENCE.format(modules=modules), monkeypatch, capsys)) == expected


# --- protected (TestProtectedContract) --------------------------------------------------------

PROTECTED_MODULES = (
    "mypackage.bar.allowed.three.blue", "mypackage.bar.allowed.one", "mypackage.bar.allowed.two",
    "mypackage.bar.other_package.one", "mypackage.bar.other_package.two", "mypackage.foo.protected.models.one",
    "mypackage.foo.protected.models.two", "mypackage.foo.protected.other_models", "mypackage.other_protected.blue",
    "mypackage.foo.sibling.models",
)
PROTECTED = (
    "    kind: protected\n    scope: {scope}\n    modules: [mypackage.foo.protected]\n"
    "    allowed_importers: [mypackage.bar.allowed]\n    as_packages: {as_packages}\n"
)


@pytest.mark.parametrize(
    ("importer", "imported", "kept", "kept_as_packages"),
    [
        ("mypackage.bar.allowed", "mypackage.foo.protected", True, True),
        ("mypackage.foo.protected.other_models", "mypackage.foo.protected.models", True, True),
        ("mypackage.bar.other_package.one", "mypackage.foo.sibling.models", True, True),
        ("mypackage.bar.allowed", "mypackage.foo.protected.models", True, True),
        ("mypackage.bar.other_package.one", "mypackage.foo.protected", False, False),
        ("mypackage.foo.sibling", "mypackage.foo.protected", False, False),
        ("mypackage.bar.allowed.three.blue", "mypackage.foo.protected", False, True),
        ("mypackage.foo.sibling.models", "mypackage.foo.protected.models", True, False),
    ],
)
@pytest.mark.parametrize("as_packages", [False, True])
def test_protected(tmp_path, monkeypatch, capsys, importer, imported, kept, kept_as_packages, as_packages) -> None:
    build(tmp_path, PROTECTED_MODULES, ((importer, imported),))
    found = check(tmp_path, PROTECTED.format(scope="any", as_packages=str(as_packages).lower()), monkeypatch, capsys)
    assert chains(found) == (set() if (kept_as_packages if as_packages else kept) else {(importer, imported)})


def test_protected_under_scope_module_the_parent_package_runs_too(tmp_path, monkeypatch, capsys) -> None:
    """A difference: `import mypackage.foo.protected.models` runs `mypackage/foo/protected/__init__.py`
    first, so with `as_packages: false` the import of the package's submodule is an import of
    the protected package itself under `scope: module`; import-linter sees only `models`."""
    build(tmp_path, PROTECTED_MODULES, (("mypackage.foo.sibling.models", "mypackage.foo.protected.models"),))
    for scope, expected in (("any", set()), ("module", {("mypackage.foo.sibling.models", "mypackage.foo.protected")})):
        found = check(tmp_path, PROTECTED.format(scope=scope, as_packages="false"), monkeypatch, capsys)
        assert chains(found) == expected, scope


# --- acyclic (TestAcyclicSiblingsContractCheck) ------------------------------------------------

ACYCLIC_MODULES = (
    "pkg.foo.blue.one", "pkg.foo.green.two.beta", "pkg.foo.green.two.gamma.a", "pkg.foo.green.two.gamma.b",
    "pkg.foo.green.two.gamma.c", "pkg.foo.green.three.delta", "pkg.foo.green.three.epsilon", "pkg.foo.green.four",
    "pkg.foo.orange", "pkg.bar.yellow", "pkg.bar.red.five", "pkg.bar.red.six",
)
ACYCLIC_IMPORTS = (
    ("pkg.foo.blue", "pkg.bar.yellow"), ("pkg.foo.blue", "pkg.foo.green.two.beta"),
    ("pkg.foo.blue.one", "pkg.foo.green.two.gamma"), ("pkg.foo.blue", "pkg.foo.green.two.gamma.a"),
    ("pkg.foo.blue.one", "pkg.foo.green.two.gamma.b"), ("pkg.foo.blue", "pkg.foo.green.two.gamma.c"),
    ("pkg.foo.green.two.beta", "pkg.foo.green.three.delta"), ("pkg.foo.green.two.beta", "pkg.foo.green.three.epsilon"),
    ("pkg.foo.green.three.delta", "pkg.foo.green.four"), ("pkg.foo.green.three.epsilon", "pkg.foo.green.four"),
    ("pkg.foo.green.two.beta", "pkg.foo.green.two.gamma"), ("pkg.bar.red.five", "pkg.bar.red.six"),
)
CYCLES = (
    ("pkg.bar.red", "pkg.foo.orange"), ("pkg.foo.green.two.gamma", "pkg.foo.blue.one"),
    ("pkg.foo.green.two.gamma", "pkg.foo.blue"), ("pkg.foo.green.two.gamma.a", "pkg.foo.blue.one"),
    ("pkg.foo.green.four", "pkg.foo.green.two.gamma"), ("pkg.foo.green.four", "pkg.foo.green.three.delta"),
    ("pkg.foo.green.two.gamma", "pkg.foo.green.two.beta"), ("pkg.bar.red.six", "pkg.bar.red.five"),
)
_PACKAGE = re.compile(r"among the children of `([\w.]+)`")


def broken_packages(found: list[dict]) -> set[str]:
    return {m.group(1) for d in found for m in [_PACKAGE.search(d["message"])] if m is not None}


@pytest.mark.parametrize(
    ("packages", "depth", "ignores", "expected"),
    [
        # import-linter's depth 0 is depth 1 here (the package's children only), its 1 our 2.
        (["pkg"], 1, [], {"pkg"}),
        (["pkg.foo", "pkg.foo.green.two"], 1, [], {"pkg.foo", "pkg.foo.green.two"}),
        (["pkg"], 2, [], {"pkg", "pkg.foo"}),
        (["pkg"], 3, [], {"pkg", "pkg.foo", "pkg.bar.red", "pkg.foo.green"}),
        (["pkg"], "all", [], {"pkg", "pkg.foo", "pkg.bar.red", "pkg.foo.green", "pkg.foo.green.two"}),
        (["pkg"], "all", ["pkg.bar.red.six -> pkg.bar.red.five"], {"pkg", "pkg.foo", "pkg.foo.green", "pkg.foo.green.two"}),
    ],
)
def test_acyclic_with_cycles(tmp_path, monkeypatch, capsys, packages, depth, ignores, expected) -> None:
    build(tmp_path, ACYCLIC_MODULES, (*ACYCLIC_IMPORTS, *CYCLES))
    contract = (
        f"    kind: acyclic\n    scope: any\n    packages: [{', '.join(packages)}]\n    depth: {depth}\n"
        f"    ignore_imports: [{', '.join(repr(i) for i in ignores)}]\n"
    )
    assert broken_packages(check(tmp_path, contract, monkeypatch, capsys)) == expected


def test_acyclic_kept_without_cycles(tmp_path, monkeypatch, capsys) -> None:
    build(tmp_path, ACYCLIC_MODULES, ACYCLIC_IMPORTS)
    assert check(tmp_path, "    kind: acyclic\n    scope: any\n    packages: [pkg]\n", monkeypatch, capsys) == []


def test_a_function_body_import_is_an_edge_only_under_scope_any(tmp_path, monkeypatch, capsys) -> None:
    """The other difference: an import inside a function does not run when its module is imported."""
    build(tmp_path, SINGLE_MODULES, SINGLE_LEGAL, in_function=(("mypackage.low.black", "mypackage.high.blue"),))
    assert chains(check(tmp_path, SINGLE.format(scope="any"), monkeypatch, capsys)) == {
        ("mypackage.low.black", "mypackage.high.blue")
    }
    assert chains(check(tmp_path, SINGLE.format(scope="module"), monkeypatch, capsys)) == set()
