"""One configuration document (a YAML tree with lines) -> checked pieces, every fault gathered.

Nothing here reads files; `load.py` walks `extends` and merges what this returns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, TypeVar

import regex

from import_policy.config.model import (
    Examples,
    Fix,
    GatewayFix,
    ImportRule,
    IncludeRule,
    ModuleFix,
    Origin,
    Rule,
    TokenRule,
)
from import_policy.config.yamltree import Map, Node, Scalar, Seq
from import_policy.patterns import DottedPattern, PathGlob, PatternError

RULE_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
BUILTIN_RULE_IDS = (
    "syntax-error",
    "trial-import-probe",
    "eager-heavy-import",
    "import-time-jit",
    "heavy-import-reachable",
)
TOP_KEYS = ("version", "extends", "exclude", "roots", "rules", "rocm_safety")
COMMON_RULE_KEYS = ("id", "kind", "message", "files", "allow_in", "severity", "examples")
RULE_KEYS = {
    "import": COMMON_RULE_KEYS + ("forbid", "except", "scope", "type_checking", "fix"),
    "include": COMMON_RULE_KEYS + ("forbid", "except"),
    "token": COMMON_RULE_KEYS + ("forbid",),
}
ROCM_KEYS = ("heavy_modules", "probes", "guards", "files", "entry_modules")


@dataclass(frozen=True)
class ConfigError:
    source: str
    line: int
    message: str

    def __str__(self) -> str:
        # Line 0: the fault is the file as a whole (missing, empty, unreadable).
        return f"{self.source}:{self.line}: {self.message}" if self.line else f"{self.source}: {self.message}"


@dataclass
class Document:
    """What one configuration file declares, before `extends` is merged."""

    extends: list[tuple[str, int]] = field(default_factory=list)
    exclude: list[PathGlob] = field(default_factory=list)
    roots: list[str] | None = None
    rules: list[Rule] = field(default_factory=list)
    rocm_safety: dict[str, tuple[object, int]] = field(default_factory=dict)
    rocm_line: int = 0


T = TypeVar("T")


class Validator:
    def __init__(self, source: str) -> None:
        self.source = source
        self.errors: list[ConfigError] = []

    def error(self, line: int, message: str) -> None:
        self.errors.append(ConfigError(self.source, line, message))

    def keys(self, node: Map, allowed: tuple[str, ...], where: str) -> None:
        for key, (line, _) in node.items.items():
            if key not in allowed:
                self.error(line, f"unknown key {key!r} in {where}; expected one of: {', '.join(sorted(allowed))}")

    def string(self, node: Node, what: str) -> str | None:
        if isinstance(node, Scalar) and isinstance(node.value, str):
            return node.value
        self.error(node.line, f"{what} must be a string, got {_describe(node)}")
        return None

    def strings(self, node: Node, what: str) -> list[tuple[str, int]]:
        if isinstance(node, Scalar) and isinstance(node.value, str):
            return [(node.value, node.line)]  # a lone string stands for a list of one
        if not isinstance(node, Seq):
            self.error(node.line, f"{what} must be a list of strings, got {_describe(node)}")
            return []
        out = []
        for item in node.items:
            value = self.string(item, f"each entry of {what}")
            if value is not None:
                out.append((value, item.line))
        return out

    def choice(self, node: Node, what: str, choices: tuple[str, ...]) -> str | None:
        value = self.string(node, what)
        if value is not None and value not in choices:
            self.error(node.line, f"{what} must be one of: {', '.join(choices)}; got {value!r}")
            return None
        return value

    def compiled(
        self, node: Node, what: str, compile_one: Callable[[str], T]
    ) -> list[T]:
        out = []
        for text, line in self.strings(node, what):
            try:
                out.append(compile_one(text))
            except PatternError as error:
                self.error(line, f"bad {what} entry: {error}")
        return out

    def dotted_patterns(self, node: Node, what: str) -> list[DottedPattern]:
        return self.compiled(node, what, DottedPattern.compile)

    def globs(self, node: Node, what: str) -> list[PathGlob]:
        return self.compiled(node, what, PathGlob.compile)

    # --- the document -------------------------------------------------------------

    def document(self, root: Node | None) -> Document:
        doc = Document()
        if root is None:
            return doc
        if not isinstance(root, Map):
            self.error(root.line, f"the configuration must be a map of settings, got {_describe(root)}")
            return doc
        self.keys(root, TOP_KEYS, "the configuration")
        items = root.items
        if "version" in items:
            line, node = items["version"]
            if not (isinstance(node, Scalar) and node.value == 1 and not isinstance(node.value, bool)):
                self.error(node.line, f"version must be 1, got {_describe(node)}")
        if "extends" in items:
            doc.extends = self.strings(items["extends"][1], "extends")
        if "exclude" in items:
            doc.exclude = self.globs(items["exclude"][1], "exclude")
        if "roots" in items:
            roots = []
            for text, line in self.strings(items["roots"][1], "roots"):
                if text != "." and not _is_relative_folder(text):
                    self.error(line, f"roots entry {text!r} must be a folder relative to the project root, like '.' or 'src'")
                else:
                    roots.append(text.rstrip("/") or ".")
            doc.roots = roots
        if "rules" in items:
            doc.rules = self.rules(items["rules"][1])
        if "rocm_safety" in items:
            doc.rocm_line, node = items["rocm_safety"]
            doc.rocm_safety = self.rocm_safety(node)
        return doc

    def rules(self, node: Node) -> list[Rule]:
        if not isinstance(node, Seq):
            self.error(node.line, f"rules must be a list of rules, got {_describe(node)}")
            return []
        out: list[Rule] = []
        seen: dict[str, int] = {}
        for item in node.items:
            rule = self.rule(item)
            if rule is None:
                continue
            if rule.id in seen:
                self.error(rule.origin.line, f"duplicate rule id {rule.id!r} (first declared on line {seen[rule.id]})")
                continue
            seen[rule.id] = rule.origin.line
            out.append(rule)
        return out

    def rule(self, node: Node) -> Rule | None:
        if not isinstance(node, Map):
            self.error(node.line, f"each rule must be a map, got {_describe(node)}")
            return None
        before = len(self.errors)
        items = node.items
        kind = "import"
        if "kind" in items:
            kind = self.choice(items["kind"][1], "kind", tuple(RULE_KEYS)) or "import"
        rule_id = ""
        if "id" not in items:
            self.error(node.line, "a rule needs an id (lowercase letters, digits and '-')")
        else:
            rule_id = self.string(items["id"][1], "id") or ""
            if rule_id and not RULE_ID.fullmatch(rule_id):
                self.error(items["id"][1].line, f"bad rule id {rule_id!r}: use lowercase letters, digits and '-', starting with a letter or digit")
            elif rule_id in BUILTIN_RULE_IDS:
                self.error(items["id"][1].line, f"rule id {rule_id!r} is reserved for a built-in rule; reserved: {', '.join(BUILTIN_RULE_IDS)}")
        self.keys(node, RULE_KEYS[kind], f"a rule of kind {kind!r}")
        if "forbid" not in items:
            self.error(node.line, f"rule {rule_id!r} needs a forbid list")
        message = self.string(items["message"][1], "message") or "" if "message" in items else ""
        files = self.globs(items["files"][1], "files") if "files" in items else []
        allow_in = self.globs(items["allow_in"][1], "allow_in") if "allow_in" in items else []
        severity = self.choice(items["severity"][1], "severity", ("error", "warning")) if "severity" in items else "error"
        examples = self.examples(items["examples"][1]) if "examples" in items else Examples()
        origin = Origin(self.source, node.line)
        forbid_node = items["forbid"][1] if "forbid" in items else Seq([], node.line)
        except_node = items["except"][1] if "except" in items else Seq([], node.line)
        common = dict(
            id=rule_id, message=message, files=tuple(files), allow_in=tuple(allow_in),
            severity=severity or "error", examples=examples, origin=origin,
        )
        rule: Rule
        if kind == "include":
            rule = IncludeRule(
                forbid=tuple(self.globs(forbid_node, "forbid")),
                except_=tuple(self.globs(except_node, "except")),
                **common,  # type: ignore[arg-type]
            )
        elif kind == "token":
            rule = TokenRule(forbid=tuple(self.regexes(forbid_node)), **common)  # type: ignore[arg-type]
        else:
            scope = self.choice(items["scope"][1], "scope", ("module", "anywhere")) if "scope" in items else "anywhere"
            type_checking = (
                self.choice(items["type_checking"][1], "type_checking", ("ignore", "check"))
                if "type_checking" in items else "ignore"
            )
            rule = ImportRule(
                forbid=tuple(self.dotted_patterns(forbid_node, "forbid")),
                except_=tuple(self.dotted_patterns(except_node, "except")),
                scope=scope or "anywhere",  # type: ignore[arg-type]
                type_checking=type_checking or "ignore",  # type: ignore[arg-type]
                fix=self.fix(items["fix"][1]) if "fix" in items else None,
                **common,  # type: ignore[arg-type]
            )
        return rule if len(self.errors) == before else None

    def regexes(self, node: Node) -> list[str]:
        out = []
        for text, line in self.strings(node, "forbid"):
            try:
                regex.compile(text, regex.MULTILINE)
            except regex.error as error:
                self.error(line, f"bad regular expression {text!r}: {error}")
                continue
            out.append(text)
        return out

    def examples(self, node: Node) -> Examples:
        if not isinstance(node, Map):
            self.error(node.line, f"examples must be a map with flag and allow lists, got {_describe(node)}")
            return Examples()
        self.keys(node, ("flag", "allow"), "examples")
        flag = self.strings(node.items["flag"][1], "examples.flag") if "flag" in node.items else []
        allow = self.strings(node.items["allow"][1], "examples.allow") if "allow" in node.items else []
        return Examples(
            tuple(t for t, _ in flag), tuple(t for t, _ in allow),
            tuple(line for _, line in flag), tuple(line for _, line in allow),
        )

    def fix(self, node: Node) -> Fix | None:
        if not isinstance(node, Map):
            self.error(node.line, f"fix must be a map with gateway/exports or replace_module, got {_describe(node)}")
            return None
        self.keys(node, ("gateway", "exports", "replace_module"), "fix")
        items = node.items
        if "replace_module" in items:
            if "gateway" in items or "exports" in items:
                self.error(node.line, "fix takes either replace_module, or gateway with exports, not both")
                return None
            target = self.dotted(items["replace_module"][1], "fix.replace_module")
            return ModuleFix(target) if target else None
        if "gateway" not in items:
            self.error(node.line, "fix needs gateway (with exports) or replace_module")
            return None
        gateway = self.dotted(items["gateway"][1], "fix.gateway")
        exports: list[tuple[str, str]] = []
        if "exports" in items:
            exports_node = items["exports"][1]
            if not isinstance(exports_node, Map):
                self.error(exports_node.line, f"fix.exports must map forbidden dotted names to exported names, got {_describe(exports_node)}")
            else:
                for key, (line, value) in exports_node.items.items():
                    name = self.string(value, f"fix.exports[{key!r}]")
                    if not DOTTED.fullmatch(key):
                        self.error(line, f"fix.exports key {key!r} must be a dotted module name")
                    elif name is not None and not IDENTIFIER.fullmatch(name):
                        self.error(value.line, f"fix.exports[{key!r}] must be an identifier, got {name!r}")
                    elif name is not None:
                        exports.append((key, name))
        return GatewayFix(gateway, tuple(exports)) if gateway else None

    def dotted(self, node: Node, what: str) -> str | None:
        value = self.string(node, what)
        if value is not None and not DOTTED.fullmatch(value):
            self.error(node.line, f"{what} must be a dotted module name like 'pkg.mod', got {value!r}")
            return None
        return value

    def rocm_safety(self, node: Node) -> dict[str, tuple[object, int]]:
        """Checked values by key, merged key by key over what `extends` gave."""
        if not isinstance(node, Map):
            self.error(node.line, f"rocm_safety must be a map, got {_describe(node)}")
            return {}
        self.keys(node, ROCM_KEYS, "rocm_safety")
        out: dict[str, tuple[object, int]] = {}
        items = node.items
        if "heavy_modules" in items:
            out["heavy_modules"] = (tuple(self.dotted_patterns(items["heavy_modules"][1], "heavy_modules")), items["heavy_modules"][0])
        if "guards" in items:
            guards = []
            for text, line in self.strings(items["guards"][1], "guards"):
                if IDENTIFIER.fullmatch(text):
                    guards.append(text)
                else:
                    self.error(line, f"guard {text!r} must be an identifier such as TYPE_CHECKING or is_cuda")
            out["guards"] = (tuple(guards), items["guards"][0])
        if "files" in items:
            out["files"] = (tuple(self.globs(items["files"][1], "rocm_safety.files")), items["files"][0])
        if "entry_modules" in items:
            entries = []
            for text, line in self.strings(items["entry_modules"][1], "entry_modules"):
                if DOTTED.fullmatch(text):
                    entries.append(text)
                else:
                    self.error(line, f"entry module {text!r} must be a dotted module name")
            out["entry_modules"] = (tuple(entries), items["entry_modules"][0])
        if "probes" in items:
            probes_node = items["probes"][1]
            probes: list[tuple[str, str | None]] = []
            if isinstance(probes_node, Map):
                for key, (line, value) in probes_node.items.items():
                    if not DOTTED.fullmatch(key):
                        self.error(line, f"probe {key!r} must be a function name or dotted path")
                    elif isinstance(value, Scalar) and value.value is None:
                        probes.append((key, None))
                    else:
                        alternative = self.string(value, f"probes[{key!r}]")
                        if alternative is not None and not IDENTIFIER.fullmatch(alternative):
                            self.error(value.line, f"probes[{key!r}] must be a function name or null")
                        elif alternative is not None:
                            probes.append((key, alternative))
            elif isinstance(probes_node, Seq):
                for text, line in self.strings(probes_node, "probes"):
                    probes.append((text, None))
            else:
                self.error(probes_node.line, f"probes must map probe names to spec-only alternatives (or null), got {_describe(probes_node)}")
            out["probes"] = (tuple(probes), items["probes"][0])
        return out


def _is_relative_folder(text: str) -> bool:
    parts = text.rstrip("/").split("/")
    return not text.startswith("/") and "\\" not in text and all(p not in ("", "..") for p in parts)


def _describe(node: Node) -> str:
    if isinstance(node, Map):
        return "a map"
    if isinstance(node, Seq):
        return "a list"
    if node.value is None:
        return "nothing"
    return f"{type(node.value).__name__} {node.value!r}"
