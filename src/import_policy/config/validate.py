"""One configuration document (a YAML tree with lines) -> checked pieces, every fault gathered.

Nothing here reads files; `load.py` walks `extends` and merges what this returns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Callable, Protocol, TypedDict, TypeVar

from import_policy.config.model import Examples, Origin, Rule, RuleBase
from import_policy.config.profiles import platforms as parse_platforms
from import_policy.config.yamltree import Map, Node, Scalar, Seq, describe_node
from import_policy.diagnostics import Severity
from import_policy.patterns import DottedPattern, PathGlob, PatternError

RULE_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
# A dict entry read with a literal key (`env["has_te"]`, `env['has_te']`), in `values`.
VALUE_ENTRY = re.compile(r"""(?P<name>%s)\[(?P<q>["'])(?P<key>[^."'\\\[\]]*)(?P=q)\]""" % DOTTED.pattern)
TOP_KEYS = ("version", "root", "extends", "exclude", "extend_exclude", "roots", "rules", "rocm_safety", "platforms",
            "ignore", "enable", "target_version", "environment", "follow", "packages")
# A distribution's name (PEP 508): letters, digits, and `.`, `-`, `_` inside.
DISTRIBUTION = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
ENVIRONMENT_KEYS = ("python",)
PYTHON_VERSION = re.compile(r"3\.(\d+)")
COMMON_RULE_KEYS = ("id", "kind", "message", "files", "allow_in", "severity", "examples")
DEFAULT_KIND = "import"
# `installed:` whether an answer holds whatever is installed (`any`), or the environment decides.
INSTALLED = ("any", "environment")
ROCM_KEYS = ("heavy_modules", "probes", "guards", "rocm", "values", "files", "entry_modules", "installed",
             "extend_guards", "extend_rocm", "extend_entry_modules")


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
    root: tuple[str, int] | None = None  # the project root, relative to this file
    exclude: list[PathGlob] = field(default_factory=list)
    roots: list[str] | None = None
    # `packages: {kt_kernel: python}`: a package kept in a folder of another name (setuptools'
    # package-dir), as (package, folder, line).
    packages: list[tuple[str, str, int]] | None = None
    rules: list[Rule] = field(default_factory=list)
    rules_line: int = 0
    rocm_safety: dict[str, tuple[object, int]] = field(default_factory=dict)
    rocm_line: int = 0
    # `platforms:` name -> (its settings as `profiles.platforms` checks them, the name's line)
    platforms: dict[str, tuple[dict[str, tuple[object, int]], int]] = field(default_factory=dict)
    ignore: list[tuple[str, int]] = field(default_factory=list)
    enable: list[tuple[str, int]] = field(default_factory=list)
    target_version: tuple[int, int] | None = None
    environment: tuple[str, int] | None = None  # `environment.python` as written, and its line
    environment_line: int = 0
    follow: list[tuple[str, int]] | None = None  # distribution names; `all` as ("*", line)
    follow_line: int = 0


T = TypeVar("T")

# A `rocm_safety` map as one file writes it: name -> (value, line); a value of False removes
# the name from what the files it extends gave.
NameMap = dict[str, tuple[object, int]]
# A `rocm_safety` list: (entry, line) in the order written.
Entries = list[tuple[object, int]]

Items = dict[str, tuple[int, Node]]


class RuleFields(TypedDict):
    """The keys every rule has, parsed; a kind adds its own."""

    id: str
    message: str
    files: tuple[PathGlob, ...]
    allow_in: tuple[PathGlob, ...]
    severity: Severity
    examples: Examples
    origin: Origin


class RuleSchema(Protocol):
    """What parsing needs of a rule kind (the registry in `kinds` provides them)."""

    @property
    def keys(self) -> tuple[str, ...]: ...

    def parse(self, v: Validator, items: Items, common: RuleFields) -> RuleBase | None: ...


class Validator:
    def __init__(
        self, source: str, kinds: Mapping[str, RuleSchema] | None = None, reserved: tuple[str, ...] = ()
    ) -> None:
        self.source = source
        self.errors: list[ConfigError] = []
        self.kinds: Mapping[str, RuleSchema] = kinds or {}
        self.reserved = reserved  # ids of the built-in rules

    def error(self, line: int, message: str) -> None:
        self.errors.append(ConfigError(self.source, line, message))

    def keys(self, node: Map, allowed: tuple[str, ...], where: str) -> None:
        for key, (line, _) in node.items.items():
            if key not in allowed:
                self.error(line, f"unknown key {key!r} in {where}{_did_you_mean(key, allowed)}; expected one of: {', '.join(sorted(allowed))}")

    def string(self, node: Node, what: str) -> str | None:
        if isinstance(node, Scalar) and isinstance(node.value, str):
            return node.value
        self.error(node.line, f"{what} must be a string, got {describe_node(node)}")
        return None

    def strings(self, node: Node, what: str) -> list[tuple[str, int]]:
        if isinstance(node, Scalar) and isinstance(node.value, str):
            return [(node.value, node.line)]  # a lone string stands for a list of one
        if not isinstance(node, Seq):
            self.error(node.line, f"{what} must be a list of strings, got {describe_node(node)}")
            return []
        out = []
        for item in node.items:
            value = self.string(item, f"each entry of {what}")
            if value is not None:
                out.append((value, item.line))
        return out

    def choice(self, node: Node, what: str, choices: tuple[str, ...]) -> str | None:
        if not (isinstance(node, Scalar) and isinstance(node.value, str)):
            self.error(node.line, f"{what} must be one of: {', '.join(choices)}; got {describe_node(node)}")
            return None
        value = node.value
        if value not in choices:
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
            # The whole file is never echoed: it may be a secret that extends named.
            self.error(root.line, f"the configuration must be a map of settings, got {describe_node(root, echo=False)}")
            return doc
        self.keys(root, TOP_KEYS, "the configuration")
        items = root.items
        if "version" in items:
            line, node = items["version"]
            if not (isinstance(node, Scalar) and node.value == 1 and not isinstance(node.value, bool)):
                self.error(node.line, f"version must be 1, got {describe_node(node)}")
        if "root" in items:
            node = items["root"][1]
            text = self.string(node, "root")
            if text is not None and (text.startswith("/") or "\\" in text or not text.strip()):
                self.error(node.line, f"root {text!r} must be a folder relative to this file, like '..'")
            elif text is not None:
                doc.root = (text, node.line)
        if "extends" in items:
            doc.extends = self.strings(items["extends"][1], "extends")
        for key in ("exclude", "extend_exclude"):  # `exclude` unions across files already: the two add alike
            if key in items:
                doc.exclude.extend(self.globs(items[key][1], key))
        if "roots" in items:
            roots = []
            for text, line in self.strings(items["roots"][1], "roots"):
                if text != "." and not _is_relative_folder(text):
                    self.error(line, f"roots entry {text!r} must be a folder relative to the project root, like '.' or 'src'")
                else:
                    roots.append(text.rstrip("/") or ".")
            doc.roots = roots
        if "packages" in items:
            doc.packages = self.packages(items["packages"][1])
        if "rules" in items:
            doc.rules_line = items["rules"][1].line
            doc.rules = self.rules(items["rules"][1])
        if "rocm_safety" in items:
            doc.rocm_line, node = items["rocm_safety"]
            doc.rocm_safety = self.rocm_safety(node)
        if "platforms" in items:
            doc.platforms = parse_platforms(self, items["platforms"][1])
        if "target_version" in items:
            target = items["target_version"][1]
            version = target.value if isinstance(target, Scalar) and isinstance(target.value, str) else None
            found = PYTHON_VERSION.fullmatch(version) if version is not None else None
            if found is None:
                self.error(target.line, f'target_version must be a Python version in quotes, like "3.15", got {describe_node(target)}')
            else:
                doc.target_version = (3, int(found.group(1)))
        if "environment" in items:
            doc.environment_line, node = items["environment"]
            doc.environment = self.environment(node)
        if "follow" in items:
            doc.follow_line, node = items["follow"]
            doc.follow = self.follow(node)
        for key in ("ignore", "enable"):
            if key in items:
                ids = []
                for text, line in self.strings(items[key][1], key):
                    if RULE_ID.fullmatch(text):
                        ids.append((text, line))
                    else:
                        self.error(line, f"{key} entry {text!r} must be a rule id (lowercase letters, digits and '-')")
                setattr(doc, key, ids)
        return doc

    def packages(self, node: Node) -> list[tuple[str, str, int]]:
        """`{package: folder}`: the folder (relative to the project root) that holds the
        package's `__init__.py`, as setuptools' `package-dir` says."""
        if not isinstance(node, Map):
            self.error(node.line, f"packages must map package names to folders, like {{kt_kernel: python}}, got {describe_node(node)}")
            return []
        out = []
        for name, (line, value) in node.items.items():
            folder = self.string(value, f"packages[{name!r}]")
            if not DOTTED.fullmatch(name):
                self.error(line, f"packages entry {name!r} must be a package name, like kt_kernel")
            elif folder is not None and folder.strip("/") not in (".", "") and not _is_relative_folder(folder):
                self.error(line, f"packages[{name!r}] must be a folder relative to the project root, like python")
            elif folder is not None:
                out.append((name, folder.strip("/") or ".", line))
        return out

    def environment(self, node: Node) -> tuple[str, int] | None:
        if not isinstance(node, Map):
            self.error(node.line, f"environment must be a map like {{python: .venv/bin/python}}, got {describe_node(node)}")
            return None
        self.keys(node, ENVIRONMENT_KEYS, "environment")
        if "python" not in node.items:
            return None
        python = node.items["python"][1]
        text = self.string(python, "environment.python")
        if text is not None and not text.strip():
            self.error(python.line, "environment.python must name the environment's interpreter, like .venv/bin/python")
            return None
        return (text, python.line) if text is not None else None

    def follow(self, node: Node) -> list[tuple[str, int]]:
        if isinstance(node, Scalar) and node.value == "all":
            return [("*", node.line)]
        if not isinstance(node, Seq):
            self.error(node.line, f"follow must be `all` or a list of installed distribution names, got {describe_node(node)}")
            return []
        names = []
        for text, line in self.strings(node, "follow"):
            if DISTRIBUTION.fullmatch(text):
                names.append((text, line))
            else:
                self.error(line, f"follow entry {text!r} must be a distribution name, like 'transformers' or 'unsloth-zoo'")
        return names

    def rules(self, node: Node) -> list[Rule]:
        if not isinstance(node, Seq):
            self.error(node.line, f"rules must be a list of rules, got {describe_node(node)}")
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
            self.error(node.line, f"each rule must be a map, got {describe_node(node)}")
            return None
        before = len(self.errors)
        items = node.items
        kind = DEFAULT_KIND
        if "kind" in items:
            kind = self.choice(items["kind"][1], "kind", tuple(self.kinds)) or DEFAULT_KIND
        rule_id = ""
        if "id" not in items:
            self.error(node.line, "a rule needs an id (lowercase letters, digits and '-')")
        else:
            rule_id = self.string(items["id"][1], "id") or ""
            if rule_id and not RULE_ID.fullmatch(rule_id):
                self.error(items["id"][1].line, f"bad rule id {rule_id!r}: use lowercase letters, digits and '-', starting with a letter or digit")
            elif rule_id in self.reserved:
                self.error(items["id"][1].line, f"rule id {rule_id!r} is reserved for a built-in rule; reserved: {', '.join(self.reserved)}")
        schema = self.kinds[kind]
        self.keys(node, COMMON_RULE_KEYS + schema.keys, f"a rule of kind {kind!r}")
        if "forbid" in schema.keys and "forbid" not in items:
            self.error(node.line, f"rule {rule_id!r} needs a forbid list")
        elif "forbid" in schema.keys and isinstance(items["forbid"][1], Seq) and not items["forbid"][1].items:
            self.error(items["forbid"][1].line, f"rule {rule_id!r} has an empty forbid list, so it checks nothing; name what it forbids")
        message = self.string(items["message"][1], "message") or "" if "message" in items else ""
        files = self.globs(items["files"][1], "files") if "files" in items else []
        allow_in = self.globs(items["allow_in"][1], "allow_in") if "allow_in" in items else []
        severity = self.choice(items["severity"][1], "severity", ("error", "warning")) if "severity" in items else "error"
        examples = self.examples(items["examples"][1]) if "examples" in items else Examples()
        common = RuleFields(
            id=rule_id, message=message, files=tuple(files), allow_in=tuple(allow_in),
            severity="warning" if severity == "warning" else "error", examples=examples,
            origin=Origin(self.source, node.line),
        )
        rule = schema.parse(self, items, common)
        return rule if len(self.errors) == before else None

    def examples(self, node: Node) -> Examples:
        if not isinstance(node, Map):
            self.error(node.line, f"examples must be a map with flag and allow lists, got {describe_node(node)}")
            return Examples()
        self.keys(node, ("flag", "allow"), "examples")
        flag = self.strings(node.items["flag"][1], "examples.flag") if "flag" in node.items else []
        allow = self.strings(node.items["allow"][1], "examples.allow") if "allow" in node.items else []
        return Examples(
            tuple(t for t, _ in flag), tuple(t for t, _ in allow),
            tuple(line for _, line in flag), tuple(line for _, line in allow),
        )

    def dotted(self, node: Node, what: str) -> str | None:
        value = self.string(node, what)
        if value is not None and not DOTTED.fullmatch(value):
            self.error(node.line, f"{what} must be a dotted module name like 'pkg.mod', got {value!r}")
            return None
        return value

    def rocm_safety(self, node: Node) -> dict[str, tuple[object, int]]:
        """Checked values by key, with the key's line. A map key (`heavy_modules`, `probes`)
        gives a `NameMap`, which `extends` merges name by name; a list key gives `Entries`,
        which a later file replaces."""
        if not isinstance(node, Map):
            self.error(node.line, f"rocm_safety must be a map, got {describe_node(node)}")
            return {}
        self.keys(node, ROCM_KEYS, "rocm_safety")
        out: dict[str, tuple[object, int]] = {}
        items = node.items
        if "heavy_modules" in items:
            out["heavy_modules"] = (self._heavy_modules(items["heavy_modules"][1]), items["heavy_modules"][0])
        for key in ("guards", "rocm", "extend_guards", "extend_rocm"):
            if key in items:
                out[key] = (self.test_names(items[key][1], key), items[key][0])
        if "values" in items:
            out["values"] = (self.values(items["values"][1]), items["values"][0])
        if "installed" in items:  # one value, kept as a one-entry list: a later file replaces it
            chosen = self.choice(items["installed"][1], "installed", INSTALLED)
            out["installed"] = ([(chosen, items["installed"][0])], items["installed"][0])
        if "files" in items:
            globs: Entries = []
            for text, line in self.strings(items["files"][1], "rocm_safety.files"):
                try:
                    globs.append((PathGlob.compile(text), line))
                except PatternError as error:
                    self.error(line, f"bad rocm_safety.files entry: {error}")
            out["files"] = (globs, items["files"][0])
        for key in ("entry_modules", "extend_entry_modules"):
            if key not in items:
                continue
            entries: Entries = []
            for text, line in self.strings(items[key][1], key):
                if DOTTED.fullmatch(text):
                    entries.append((text, line))
                else:
                    self.error(line, f"entry module {text!r} must be a dotted module name")
            out[key] = (entries, items[key][0])
        if "probes" in items:
            out["probes"] = (self._probes(items["probes"][1]), items["probes"][0])
        return out

    def test_names(self, node: Node, key: str) -> Entries:
        """A list of platform test names: a last name (`is_cuda`), or a full dotted name
        (`torch.version.hip`)."""
        names: Entries = []
        for text, line in self.strings(node, key):
            if DOTTED.fullmatch(text):
                names.append((text, line))
            else:
                false = "guards" in key
                example = "is_cuda or torch.version.cuda" if false else "is_hip or torch.version.hip"
                self.error(line, f"{key} entry {text!r} must be a name such as {example}")
        return names

    def _heavy_modules(self, node: Node) -> NameMap:
        """name -> reason (None: none given; False: removed from what `extends` gave)."""
        names: NameMap = {}
        if isinstance(node, (Map, Seq)) and not (node.items if isinstance(node, Map) else node.items):
            self.error(
                node.line,
                "heavy_modules is empty, so it flags nothing; name the modules a ROCm process must not import "
                "(to drop one that extends gives, write `name: false`)",
            )
        if isinstance(node, Map):
            for key, (line, value) in node.items.items():
                if not self._pattern(key, line, "heavy_modules"):
                    continue
                if isinstance(value, Scalar) and (value.value is None or value.value is False):
                    names[key] = (value.value, line)
                    continue
                reason = self.string(value, f"the reason of heavy module {key!r} (or false to remove it)")
                if reason is not None:
                    names[key] = (reason, line)
        else:
            for text, line in self.strings(node, "heavy_modules"):
                if self._pattern(text, line, "heavy_modules"):
                    names[text] = (None, line)
        return names

    def _pattern(self, text: str, line: int, what: str) -> bool:
        try:
            DottedPattern.compile(text)
        except PatternError as error:
            self.error(line, f"bad {what} entry: {error}")
            return False
        return True

    def _probes(self, node: Node) -> NameMap:
        """probe -> spec-only alternative (None: no fix; False: removed from what `extends` gave)."""
        probes: NameMap = {}
        if isinstance(node, Map):
            for key, (line, value) in node.items.items():
                if not DOTTED.fullmatch(key):
                    self.error(line, f"probe {key!r} must be a function name or dotted path")
                elif isinstance(value, Scalar) and (value.value is None or value.value is False):
                    probes[key] = (value.value, line)
                else:
                    alternative = self.string(value, f"probes[{key!r}]")
                    if alternative is not None and not IDENTIFIER.fullmatch(alternative):
                        self.error(value.line, f"probes[{key!r}] must be a function name, null or false")
                    elif alternative is not None:
                        probes[key] = (alternative, line)
        elif isinstance(node, Seq):
            for text, line in self.strings(node, "probes"):
                probes[text] = (None, line)
        else:
            self.error(node.line, f"probes must map probe names to spec-only alternatives (or null), got {describe_node(node)}")
        return probes


    def values(self, node: Node, where: str = "on ROCm") -> NameMap:
        """`values:` name -> what it holds in a ROCm process (`where` the profile's platform): a
        string, number, true or null (`false`, as in every map of rocm_safety, removes the name
        `extends` gave; a name no extended file gives holds false). A name may be a dict entry
        read with a literal key."""
        if not isinstance(node, Map):
            self.error(node.line, f"values must map names to what they hold {where} (DEVICE_TYPE: hip), got {describe_node(node)}")
            return {}
        out: NameMap = {}
        for key, (line, value) in node.items.items():
            entry = VALUE_ENTRY.fullmatch(key)
            if entry is not None:  # `env['has_te']` is `env["has_te"]`, as the pass names a dict entry
                key = f'{entry.group("name")}["{entry.group("key")}"]'
            if not DOTTED.fullmatch(key) and entry is None:
                self.error(line, f"values entry {key!r} must be a name such as DEVICE_TYPE or torch.version.cuda, or a dict entry such as env[\"has_te\"]")
            elif not isinstance(value, Scalar):
                self.error(value.line, f"values[{key!r}] must be a string, number, true or null (false removes the name), got {describe_node(value)}")
            else:
                out[key] = (value.value, line)
        return out


def _did_you_mean(key: str, allowed: Sequence[str]) -> str:
    """` (did you mean 'rules'?)` for a key near a valid one (`rulez`, `allow-in`), else nothing."""
    import difflib  # only a misspelling pays for it

    near = difflib.get_close_matches(key.replace("-", "_"), list(allowed), n=1, cutoff=0.7)
    return f" (did you mean {near[0]!r}?)" if near else ""


def checks_nothing(source: str, documents: Sequence[Document]) -> ConfigError | None:
    """A configuration whose files, merged, declare no rule and no ROCm pass checks nothing:
    an error at the top file (`documents[-1]`), not a silent pass."""
    if any(document.rules or document.rocm_line for document in documents):
        return None
    top = documents[-1]
    where = "rules: [] declares no rule" if top.rules_line else "it declares no rules"
    return ConfigError(
        source, top.rules_line or 1,
        f"the configuration checks nothing: {where}, no rocm_safety and extends nothing; "
        "declare rules, rocm_safety or extends (e.g. extends: [rocm-safety])",
    )


def _is_relative_folder(text: str) -> bool:
    parts = text.rstrip("/").split("/")
    return not text.startswith("/") and "\\" not in text and all(p not in ("", "..") for p in parts)
