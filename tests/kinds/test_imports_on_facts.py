"""`kind: import` checks on hand-built facts: no parse, only the pure check over records."""

from __future__ import annotations

from import_policy.config.model import Examples, ModuleFix, Origin
from import_policy.facts.records.model import Context, FileFacts, ImportFact, Span, UseFact
from import_policy.kinds.imports import ImportKind, ImportRule
from import_policy.patterns import DottedPattern

MODULE = Context(import_time=True, type_checking=False)
FUNCTION = Context(import_time=False, type_checking=False, function="f")
TYPING = Context(import_time=True, type_checking=True)


def rule(forbid: list[str], except_: list[str] = [], **options: object) -> ImportRule:
    return ImportRule(
        "r", "", (), (), "error", Examples(), Origin("t.yaml", 1),
        forbid=tuple(DottedPattern.compile(p) for p in forbid),
        except_=tuple(DottedPattern.compile(p) for p in except_),
        **options,  # type: ignore[arg-type]
    )


def span(line: int, column: int = 1, width: int = 4) -> Span:
    return Span(line, column, line, column + width)


def plain(name: str, line: int, context: Context = MODULE, statement: int = 0) -> ImportFact:
    return ImportFact("import", name, name, None, name.split(".")[0], span(line, 8), span(line, 8), statement, line, context)


def member(module: str, name: str, line: int, statement: int, column: int = 20) -> ImportFact:
    return ImportFact(
        "from", f"{module}.{name}", module, name, name, span(line, column), span(line, 6), statement, line, MODULE
    )


def facts(*imports: ImportFact, uses: tuple[UseFact, ...] = ()) -> FileFacts:
    return FileFacts("pkg/m.py", "pkg.m", False, imports=imports, uses=uses)


def lines(found: list) -> list[tuple[int, int]]:  # type: ignore[type-arg]
    return [(d.line, d.column) for d in found]


KIND = ImportKind()


def test_forbidden_import_and_its_prefixes() -> None:
    assert lines(KIND.check(rule(["pickle"]), facts(plain("pickle", 1), plain("pickletools", 2), plain("os", 3)))) == [(1, 8)]
    assert lines(KIND.check(rule(["torch.cuda"]), facts(plain("torch.cuda.amp", 1), plain("torch", 2)))) == [(1, 8)]


def test_except_carves_back_out_and_the_longest_match_decides() -> None:
    checked = rule(["pkg"], ["pkg.ir"])
    found = KIND.check(checked, facts(plain("pkg.ir.x", 1), plain("pkg.other", 2), plain("pkg", 3)))
    assert lines(found) == [(2, 8), (3, 8)]


def test_scope_module_skips_function_bodies() -> None:
    imports = facts(plain("pickle", 1), plain("pickle", 5, FUNCTION, 1))
    assert lines(KIND.check(rule(["pickle"], scope="module"), imports)) == [(1, 8)]
    assert lines(KIND.check(rule(["pickle"]), imports)) == [(1, 8), (5, 8)]


def test_type_checking_ignore_and_check() -> None:
    imports = facts(plain("torch", 2, TYPING))
    assert KIND.check(rule(["torch"]), imports) == []
    assert lines(KIND.check(rule(["torch"], type_checking="check"), imports)) == [(2, 8)]


def test_a_forbidden_module_is_one_finding_at_the_module_names_one_by_one() -> None:
    whole = facts(member("re", "compile", 1, 0), member("re", "sub", 1, 0, 30))
    assert lines(KIND.check(rule(["re"]), whole)) == [(1, 6)]
    names = facts(member("os", "system", 1, 0), member("os", "popen", 1, 0, 30), member("os", "path", 1, 0, 40))
    assert lines(KIND.check(rule(["os.system", "os.popen"]), names)) == [(1, 20), (1, 30)]


def test_uses_are_reported_unless_their_import_was_forbidden() -> None:
    use = UseFact(("torch.cuda.synchronize",), "torch", span(9, 1, 22), 9, FUNCTION)
    assert lines(KIND.check(rule(["torch.cuda.synchronize"]), facts(plain("torch", 1), uses=(use,)))) == [(9, 1)]
    # `import torch` itself forbidden: judged at the import, not again at the use.
    assert lines(KIND.check(rule(["torch"]), facts(plain("torch", 1), uses=(use,)))) == [(1, 8)]


def test_a_module_fix_makes_the_finding_fixable_and_the_message_default() -> None:
    found = KIND.check(rule(["re"], fix=ModuleFix("regex")), facts(plain("re", 1)))
    assert [(d.fixable, d.message) for d in found] == [(True, "`re` is forbidden")]
    assert KIND.fixable(rule(["re"], fix=ModuleFix("regex"))) == "yes"
    assert KIND.fixable(rule(["re"])) == "no"
