"""What a configuration names in the tree must be there (contract section 2).

An entry module or a `fix.gateway` that is not a module of the project is a configuration
error at its YAML line: a typo there would otherwise turn the pass or the fix off unseen. A
gateway that does not bind one of its `exports` at module level gets a warning, and that
name is not fixable: the fix would write an import that fails. Only files are looked up
and, for the exports, the gateway's own file is read; nothing else is.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from import_policy.policy.load import ConfigErrors
from import_policy.config.model import GatewayFix, Origin, Policy, RuleBase
from import_policy.discovery import probe
from import_policy.quoting import quote_path
from import_policy.project.layout import top_level_names
from import_policy.project.modules import root_folder
from import_policy.project.modules import ProjectModules

# What errors and warnings need (validation's records, the YAML lines of a rule) is imported
# when there is one to tell: a tree that matches its configuration reads no YAML.
if TYPE_CHECKING:
    import libcst

    from import_policy.config.validate import ConfigError


@dataclass(frozen=True)
class Checked:
    policy: Policy  # with the exports no gateway binds taken out of the fixes
    warnings: tuple[str, ...]  # for stderr, `file:line: warning: ...`


def against_tree(policy: Policy, remember: bool = False) -> Checked:
    """`policy` checked against the tree under its root; `ConfigErrors` when it names a
    module that is not there. `remember`: the run may keep `.gitignore` verdicts (cache.ignores)."""
    modules = ProjectModules(policy, {}, remember)
    errors = [*_roots(policy), *_entries(policy, modules)]
    warnings: list[str] = []
    if not errors:
        errors.extend(_default_entries(policy, warnings))
    gateways = [rule for rule in policy.rules if isinstance(getattr(rule, "fix", None), GatewayFix)]
    for rule in gateways:
        fix = getattr(rule, "fix")
        if fix.gateway not in modules:
            from import_policy.config.validate import ConfigError
            from import_policy.policy.where import rule_entry

            errors.append(ConfigError(
                rule.origin.source, rule_entry(rule.origin, ("fix", "gateway")),
                f"fix.gateway {fix.gateway!r} of rule {rule.id!r} is not a module of the project "
                f"(no {_spelled(fix.gateway)} under roots {', '.join(policy.roots)})",
            ))
    if not errors and (policy.follow is not None or _asks_installed(policy)):
        errors.extend(_follow_errors(policy))
    if errors:
        raise ConfigErrors(errors)
    rules: list[RuleBase] = []
    for rule in policy.rules:
        fix = getattr(rule, "fix", None)
        if isinstance(fix, GatewayFix):
            path = modules[fix.gateway]
            kept = _bound_exports(policy, rule, fix, path, warnings)
            rule = replace(rule, fix=replace(fix, exports=kept), gateway_file=path)  # type: ignore[call-arg]
        rules.append(rule)
    if policy.follow is not None:
        from import_policy.policy.follow import warnings as follow_warnings

        warnings.extend(follow_warnings(policy))
    return Checked(replace(policy, rules=tuple(rules)), tuple(warnings))


def _follow_errors(policy: Policy) -> Iterator[ConfigError]:
    """A `follow` that reads nothing it names: no environment, none installed, or one installed
    none of whose modules is found."""
    from import_policy.config.validate import ConfigError
    from import_policy.graph.environment import project_environment
    from import_policy.policy.follow import dependencies, errors

    for source, line, message in errors(policy, dependencies(policy)):
        yield ConfigError(source, line, message)
    python = policy.follow.python if policy.follow is not None else None
    if _asks_installed(policy) and project_environment(policy.root, python) is None:
        origin = next((r.origin for r in policy.rules if getattr(r, "installed", "any") == "environment"), None)
        if origin is None and policy.rocm_safety is not None:
            origin = policy.rocm_safety.origin_of("installed", "environment")
        where = origin or Origin(policy.sources[-1] if policy.sources else "", 0)
        yield ConfigError(where.source, where.line, (
            "installed: environment needs an environment to read: no environment.python, no .venv under the "
            f"project root ({policy.root / '.venv'}), and no usable $VIRTUAL_ENV"
        ))


def _asks_installed(policy: Policy) -> bool:
    from import_policy.policy.follow import asks_installed

    return asks_installed(policy)


def _entries(policy: Policy, modules: ProjectModules) -> Iterator[ConfigError]:
    rocm = policy.rocm_safety
    if rocm is None:
        return
    for entry in rocm.entry_modules:
        if entry in modules:
            continue
        origin = rocm.origin_of("entry_modules", entry)
        packages = sorted(name for name, _, package in top_level_names(policy.root, policy.roots) if package)
        hint = "; set rocm_safety.entry_modules to replace the preset's list" if origin.source.startswith("preset:") else ""
        from import_policy.config.validate import ConfigError

        yield ConfigError(
            origin.source, origin.line,
            f"entry module {entry!r} is not a module of the project (no {_spelled(entry)} under roots "
            f"{', '.join(policy.roots)}); the project's top-level packages: {', '.join(packages) or '(none)'}{hint}",
        )


def _roots(policy: Policy) -> Iterator[ConfigError]:
    """Each `roots` entry that is not a folder under the project root: no module is found
    there, and the ROCm pass would check nothing."""
    for root in policy.roots:
        folder = root_folder(root)
        if not probe.is_dir(policy.root / folder):
            from import_policy.config.validate import ConfigError
            from import_policy.policy.where import top_level_entry

            package = root.partition("=")[2]
            origin = top_level_entry(policy, "packages" if package else "roots", package or folder) or Origin(
                policy.sources[-1] if policy.sources else "", 0,
            )
            what = f"the folder of package {package!r}, {folder!r}," if package else f"roots entry {folder!r}"
            yield ConfigError(
                origin.source, origin.line,
                f"{what} is not a folder under the project root "
                f"({quote_path(os.path.relpath(policy.root / folder))} is not there)",
            )


def _looked(policy: Policy) -> str:
    """Where the roots are, relative to the current folder (as every path a run shows)."""
    shown = []
    for root in policy.roots:
        relative = os.path.relpath(policy.root / root_folder(root))
        shown.append(quote_path("./" if relative == "." else relative + "/"))
    return ", ".join(shown)


def _default_entries(policy: Policy, warnings: list[str]) -> Iterator[ConfigError]:
    """A ROCm pass (or an `import-time` rule, whose `entry` is required) left with no entry
    module checks nothing: an error saying where it looked, a warning where only the built-in
    preset applies (no configuration was found). A default entry that certainly reaches no
    other module (a namespace package, or an `__init__.py` that spells no import) gets a
    warning naming it and the roots it came from."""
    rocm = policy.rocm_safety
    if rocm is None or rocm.entry_modules:
        return
    from import_policy.graph.plan import default_entries

    origin = _users(policy, rocm.origin)
    top = list(top_level_names(policy.root, policy.roots))
    entries = default_entries((name, package) for name, _, package in top)
    roots = ", ".join(repr(root) for root in policy.roots)
    if not entries:
        message = (
            f"the ROCm pass has no entry module: rocm_safety.entry_modules is not set and there is no top-level "
            f"package (a folder with an __init__.py, or of modules) in {_looked(policy)} (roots {roots}); "
            "name the modules a process imports in rocm_safety.entry_modules, or set roots"
        )
        if all(source.startswith("preset:") for source in policy.sources):
            warnings.append(f"warning: {message}")
            return
        from import_policy.config.validate import ConfigError

        yield ConfigError(origin.source, origin.line, message)
        return
    folders = {name: folder for name, folder, _ in reversed(top)}
    for entry in entries:
        held, _, package = folders[entry].partition("=")
        init = policy.root / held / ("" if package else entry) / "__init__.py"
        try:
            source: bytes | None = init.read_bytes()
        except OSError:
            source = None  # a namespace package: importing it runs nothing
        if source is None or b"import" not in source:
            what = "a namespace package" if source is None else "its __init__.py imports nothing"
            where = "" if origin.source.startswith("preset:") else f"{origin}: "  # no file of the user's to point at
            warnings.append(
                f"{where}warning: the default entry module {entry!r} (a top-level package under roots "
                f"{roots}) reaches no other module ({what}), so the ROCm pass checks nothing from it; "
                "name the modules a process imports in rocm_safety.entry_modules"
            )


def _users(policy: Policy, origin: Origin) -> Origin:
    """`origin`, or where the user's file extends the preset that declared it: a message
    points at a file the user can edit."""
    if not origin.source.startswith("preset:") or not policy.sources or policy.sources[-1].startswith("preset:"):
        return origin
    from import_policy.policy.where import top_level_entry

    return top_level_entry(policy, "extends", origin.source[len("preset:"):]) or Origin(policy.sources[-1], 1)


def _spelled(module: str) -> str:
    inner = module.replace(".", "/")
    return f"{inner}.py or {inner}/__init__.py"


def _bound_exports(
    policy: Policy, rule: RuleBase, fix: GatewayFix, path: str, warnings: list[str]
) -> tuple[tuple[str, str], ...]:
    """The exports the gateway binds; a warning for each other one."""
    try:
        source = (policy.root / path).read_bytes()
    except OSError as error:
        bound: frozenset[str] | str = f"cannot be read ({error.strerror or error})"
    else:
        bound = module_bindings(source, path)
    kept = []
    for original, exported in fix.exports:
        if isinstance(bound, frozenset) and (exported in bound or _submodule(policy, path, exported)):
            kept.append((original, exported))
            continue
        from import_policy.policy.where import rule_entry

        line = rule_entry(rule.origin, ("fix", "exports", original))
        why = f"{path} {bound}" if isinstance(bound, str) else f"{path} does not bind `{exported}` at module level"
        warnings.append(
            f"{Origin(rule.origin.source, line)}: warning: fix.exports of rule {rule.id!r} maps `{original}` to "
            f"`{fix.gateway}.{exported}`, but {why}; `{original}` is not fixable"
        )
    return tuple(kept)


def _submodule(policy: Policy, path: str, name: str) -> bool:
    """`from pkg import name` also binds a submodule `pkg/name.py` (Python imports it)."""
    if not path.endswith("/__init__.py"):
        return False
    folder = policy.root / path[: -len("__init__.py")]
    return probe.is_file(folder / f"{name}.py") or probe.is_file(folder / name / "__init__.py")


def module_bindings(source: bytes, path: str) -> frozenset[str] | str:
    """The names a module binds at module level (assigned, imported, defined, in any
    branch), or why they cannot be told. A star import or a module `__getattr__` may bind
    any name: then every name counts as bound (nothing to warn about). The file is read as
    the facts read it: its text as CPython decodes it, syntax newer than this interpreter's
    through libcst."""
    import symtable

    from import_policy.facts.records.model import SyntaxErrorFact
    from import_policy.facts.shared.decoded import python_text
    from import_policy.facts.source.syntax import newest_read

    parsed, lazy = newest_read(source, path)
    if isinstance(parsed, SyntaxErrorFact):
        return f"does not parse (line {parsed.line})"
    if not isinstance(parsed, ast.Module):
        return _cst_bindings(parsed)
    try:
        text = python_text(lazy.source if lazy is not None else source)
        table = symtable.symtable(text, path, "exec")
    except (SyntaxError, LookupError, UnicodeDecodeError, ValueError, RecursionError) as error:
        return f"cannot be read ({type(error).__name__})"
    names = frozenset(
        symbol.get_name() for symbol in table.get_symbols()
        if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace()
    )
    if "__getattr__" in names or _star_import(parsed):
        return _EVERY_NAME
    return names


def _cst_bindings(tree: libcst.Module) -> frozenset[str] | str:
    """`module_bindings` from libcst's tree (a file of syntax newer than this interpreter's)."""
    import libcst.matchers as m
    from libcst.metadata import GlobalScope, MetadataWrapper, ScopeProvider

    from import_policy.facts.shared.identifiers import normal

    try:
        scopes = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(ScopeProvider)
    except RecursionError as error:
        return f"cannot be read ({type(error).__name__})"
    module = next((scope for scope in scopes.values() if isinstance(scope, GlobalScope)), None)
    names = frozenset(normal(assignment.name) for assignment in module.assignments) if module is not None else frozenset()
    star = bool(m.findall(tree, m.ImportFrom(names=m.ImportStar())))
    return _EVERY_NAME if "__getattr__" in names or star else names


class _Every(frozenset[str]):
    def __contains__(self, name: object) -> bool:
        return True


_EVERY_NAME = _Every()


def _star_import(tree: ast.Module) -> bool:
    """Python allows `from m import *` at module level only, so any one binds module names."""
    return any(isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names) for node in ast.walk(tree))
