"""Find the configuration, follow `extends`, merge, and hand back one `Policy`.

Every fault of every file is gathered before anything is raised, so a user
fixes a configuration in one round.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from import_policy.cache.policy import Built, Known, PolicyIndex, entry_key
from import_policy.config.model import Follow, Origin, Policy, Profile, RocmSafety, Rule
from import_policy.policy.errors import ConfigErrors as ConfigErrors
from import_policy.policy.platforms import EXTEND, PlatformMerge, check_rules
from import_policy.discovery import probe
from import_policy.quoting import quote_path

# YAML parsing, validation and the kinds are imported by the functions that build a policy:
# a run that the caches answer (cache.policy, cache.run) never builds one.
if TYPE_CHECKING:
    from importlib.abc import Traversable

    from import_policy.config.validate import ConfigError, Document

CONFIG_NAMES = ("import-policy.yaml", ".import-policy.yaml")
DEFAULT_PRESET = "rocm-safety"
MAX_EXTENDS_DEPTH = 32


def _error(source: str, line: int, message: str) -> ConfigError:
    from import_policy.config.validate import ConfigError

    return ConfigError(source, line, message)


ABSENT = "absent"  # a source's digest while the file is not there (never a BLAKE2 hex digest)


def digest(data: bytes) -> str:
    """What a configuration's bytes are known by in the caches."""
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def _rules() -> Traversable:
    """The presets' folder: the package's own folder when it is one (importlib.resources costs
    a warm run 5 ms to import), else what importlib.resources finds (a zip, say)."""
    import importlib

    package = importlib.import_module("import_policy.rules")
    for location in getattr(package, "__path__", ()):
        if isinstance(location, str) and os.path.isdir(location):
            return Path(location)
    from importlib import resources

    return resources.files("import_policy.rules")


def presets() -> list[str]:
    folder = _rules()
    return sorted(p.name[: -len(".yaml")] for p in folder.iterdir() if p.name.endswith(".yaml"))


def preset_text(name: str) -> str | None:
    data = preset_bytes(name)
    return None if data is None else _text(data)


def preset_bytes(name: str) -> bytes | None:
    if name not in presets():
        return None
    return (_rules() / f"{name}.yaml").read_bytes()


def _text(data: bytes) -> str:
    """`data` decoded as `read_text` would (UTF-8, universal newlines)."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def source_bytes(key: str) -> bytes | None:
    """The bytes of a source as `Loaded.read` names it (`preset:NAME` or an absolute path)."""
    try:
        return preset_bytes(key[len("preset:"):]) if key.startswith("preset:") else Path(key).read_bytes()
    except OSError:
        return None


def find_config(start: Path, cwd: Path | None = None) -> tuple[Path, Path] | None:
    """The first configuration from `start` upward, with the folder it was found in (the
    project root unless the YAML's `root:` says otherwise: for a pyproject.toml naming
    `tools/import-policy.yaml`, the pyproject's folder). A pyproject.toml counts only if it
    has a `[tool.import-policy]` table, and then that table must name one (`ConfigErrors` if not)."""
    for folder in (start, *start.parents):
        found = config_in(folder, cwd or start)
        if found is not None:
            return found, folder
    return None


def config_in(folder: Path | str, cwd: Path) -> Path | None:
    """The configuration `folder` itself holds, if any (the search's one step). Strings and
    `os.path`: a walk asks this of every folder it meets."""
    for name in CONFIG_NAMES:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return Path(candidate)
    pyproject = os.path.join(folder, "pyproject.toml")
    if os.path.isfile(pyproject):
        return _named_in_pyproject(Path(pyproject), cwd)
    return None


# What the search looks for, as a message names it.
LOOKED_FOR = f"{', '.join(CONFIG_NAMES)}, or a pyproject.toml with [tool.import-policy] config"


def no_config_note(start: Path, cwd: Path) -> str:
    """The stderr line of a run judged by the built-in preset: where the search began, what it sought."""
    return (
        f"no configuration found from {_shown_relative(start, cwd)} upward (looked for {LOOKED_FOR}); "
        f"using the built-in {DEFAULT_PRESET} preset"
    )


def _shown_relative(folder: Path, cwd: Path) -> str:
    return quote_path(Path(os.path.relpath(os.path.abspath(folder), os.path.abspath(cwd))).as_posix())


_TABLE_HEADER = re.compile(r"""^[ \t]*\[\s*tool\s*\.\s*(["']?)import-policy\1\s*\]""", re.MULTILINE)
_TOML_LINE = re.compile(r"at line (\d+)")


def _named_in_pyproject(pyproject: Path, cwd: Path) -> Path | None:
    """The file `[tool.import-policy] config` names; None for a pyproject.toml without the table."""
    import sys

    try:
        data = pyproject.read_bytes()
    except OSError:
        return None
    if b"import-policy" not in data:
        return None  # no `[tool.import-policy]` table can be spelled without it: no TOML parse
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

    shown = _shown(pyproject, cwd)
    try:
        text = _text(data)
    except UnicodeDecodeError:
        return None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        if "import-policy" not in text:
            return None  # it cannot be configuring us: pass over it as the search always did
        found = _TOML_LINE.search(str(error))
        raise ConfigErrors([_error(shown, int(found.group(1)) if found else 0, f"invalid TOML: {error}")]) from None
    tool = data.get("tool")
    table = tool.get("import-policy") if isinstance(tool, dict) else None
    if table is None:
        return None
    header = _TABLE_HEADER.search(text)
    line = text.count("\n", 0, header.start()) + 1 if header else 0
    named = table.get("config") if isinstance(table, dict) else None
    if not isinstance(named, str) or not named:
        got = "has no `config` key" if not isinstance(table, dict) or "config" not in table else f"has config = {named!r}"
        raise ConfigErrors([_error(
            shown, line,
            f"[tool.import-policy] {got}; it checks nothing without one: "
            'name the policy file, e.g. config = "import-policy.yaml"',
        )])
    path = pyproject.parent / named
    if not probe.is_file(path):
        what = "is a folder, not a file" if probe.is_dir(path) else "no such file"
        raise ConfigErrors([_error(shown, line, f"[tool.import-policy] config = {named!r}: {what}")])
    return path


@dataclass
class Loaded:
    policy: Policy
    config: Path | None  # None when the default preset applies
    # Every file or preset read, as (`preset:NAME` or absolute path, digest of its bytes), in order.
    read: tuple[tuple[str, str], ...] = field(default=())


def load(config: Path | None, cwd: Path, remember: bool = False, start: Path | None = None) -> Loaded:
    """`config` from --config, else discovered from `start` (default `cwd`) upward; the default
    preset if there is none.
    `remember`: a run that may use the caches takes the policy built from the same bytes
    before (cache.policy's `Built`), and keeps the one it builds."""
    if not remember:
        return _load(config, cwd, start)
    found = _entry(config, cwd, start)
    if found is not None:
        key, root, _ = found
        kept = Built(root).get(key, _digest_of)
        if kept is not None:
            from import_policy.cache.records import decode

            try:
                loaded = decode(kept)
            except (ValueError, TypeError, KeyError, AttributeError, ImportError, RecursionError):
                loaded = None  # a record this version cannot read: built afresh
            if isinstance(loaded, Loaded) and probe.is_dir(loaded.policy.root):
                return loaded
    loaded = _load(config, cwd, start)
    if found is not None and loaded.read:
        from import_policy.cache.records import encode

        try:
            Built(loaded.policy.root).put(found[0], loaded.read, encode(loaded))
        except ValueError:
            pass  # a value with no plain form: built on every run
    return loaded


def _load(config: Path | None, cwd: Path, start: Path | None = None) -> Loaded:
    if config is None:
        found = find_config(start or cwd, cwd)
        if found is None:
            read: list[tuple[str, str]] = []
            policy = _build(cwd, _Source(f"preset:{DEFAULT_PRESET}", None, DEFAULT_PRESET), cwd, read)
            return Loaded(policy, None, tuple(read))
        config, base = found
    else:
        config = config if config.is_absolute() else cwd / config
        base = config.parent  # --config FILE: FILE's folder, unless its `root:` says otherwise
    if probe.is_dir(config):
        raise ConfigErrors([_error(_shown(config, cwd), 0, "is a folder; --config takes a configuration file")])
    if not probe.is_file(config):
        raise ConfigErrors([_error(_shown(config, cwd), 0, "no such file")])
    read_: list[tuple[str, str]] = []
    policy = _build(base, _Source(_shown(config, cwd), config, None), cwd, read_)
    return Loaded(policy, config, tuple(read_))


def _entry(config: Path | None, cwd: Path, start: Path | None = None) -> tuple[str, Path, Path | None] | None:
    """The key the caches know the policy `load(config, cwd)` builds by, with the root they
    live under and the configuration file (None: the default preset); None when the
    configuration cannot be found or read (building it says why)."""
    found = _top(config, cwd, start)
    if found is None:
        return None
    top, root, data, config = found
    return entry_key(top, digest(data), cwd, root), root, config


def known(config: Path | None, cwd: Path, start: Path | None = None) -> tuple[Known, Path | None] | None:
    """What the last run recorded of the policy `load(config, cwd)` would build, when not a
    byte of any file it came from has changed since (cache.policy); with the configuration
    file (None: the default preset). None: build it."""
    found = _entry(config, cwd, start)
    if found is None:
        return None
    key, root, config = found
    entry = PolicyIndex(root).get(key, _digest_of)
    return None if entry is None else (entry, config)


def _top(config: Path | None, cwd: Path, start: Path | None = None) -> tuple[str, Path, bytes, Path | None] | None:
    """(how the caches name the top configuration, the root they live under, its bytes, its file)."""
    try:
        base: Path | None = None
        if config is None:
            discovered = find_config(start or cwd, cwd)
            config, base = discovered if discovered is not None else (None, None)
        if config is None:
            top, root, data = f"preset:{DEFAULT_PRESET}", cwd.resolve(), preset_bytes(DEFAULT_PRESET)
        else:
            config = config if config.is_absolute() else cwd / config
            # With a `root:` elsewhere the entry was recorded under that root and this
            # lookup misses: the policy is built, which is slower, never wrong.
            top, root, data = str(config.resolve()), (base or config.parent).resolve(), config.read_bytes()
    except (ConfigErrors, OSError):
        return None  # building it says what is wrong
    if data is None:
        return None
    return top, root, data, config


def remember(loaded: Loaded, cwd: Path, policy_digest: str, ids: Iterable[str]) -> None:
    """Record what `known` needs, for a policy a run has just been keyed by (`ids`: the rule
    ids a selection may name)."""
    if not loaded.read:
        return
    policy = loaded.policy
    top, top_digest = loaded.read[0]
    wanted = policy.follow
    follow = (wanted.python, wanted.names, wanted.every) if wanted is not None and (wanted.names or wanted.every) else None
    entry = Known(policy.root, tuple(glob.text for glob in policy.exclude), policy_digest, tuple(sorted(ids)), follow)
    PolicyIndex(policy.root).put(entry_key(top, top_digest, cwd, policy.root), loaded.read, entry)


def _digest_of(source: str) -> str | None:
    data = source_bytes(source)
    if data is None:
        return ABSENT if not source.startswith("preset:") and not os.path.lexists(source) else None
    return digest(data)


@dataclass
class _Source:
    shown: str  # how messages name it
    path: Path | None  # None for a preset
    preset: str | None


def _shown(path: Path, cwd: Path) -> str:
    """A configuration file's path as every output shows paths: relative to the current
    folder, normalized (`rules`, `explain`, SARIF's `properties.source`, errors)."""
    try:
        shown = path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        shown = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(cwd))).as_posix()
    return quote_path(shown)


def _build(root: Path, top: _Source, cwd: Path, read: list[tuple[str, str]]) -> Policy:
    errors: list[ConfigError] = []
    ordered: list[tuple[_Source, Document]] = []
    _collect(top, [], errors, ordered, cwd, set(), read, (root,))
    from import_policy.config.validate import checks_nothing

    empty = checks_nothing(top.shown, [document for _, document in ordered]) if ordered and not errors else None
    if empty is not None and top.path is not None:
        errors.append(empty)
    root = _root(root, top, ordered, errors)
    if errors:
        first_seen = {source: index for index, source in reversed(list(enumerate(e.source for e in errors)))}
        raise ConfigErrors(sorted(errors, key=lambda e: (first_seen[e.source], e.line)))
    return _merge(root.resolve(), ordered, read)


def _root(base: Path, top: _Source, ordered: list[tuple[_Source, Document]], errors: list[ConfigError]) -> Path:
    """The project root: `base` (where the configuration was found), unless the top file's
    `root:` names another folder, relative to that file. An extended file cannot move the
    root: it is shared by projects whose roots differ."""
    root = base
    for source, document in ordered:
        if document.root is None:
            continue
        text, line = document.root
        if source is not top:
            errors.append(_error(source.shown, line, "root: is read only from the configuration a run starts from, not from an extended file"))
            continue
        folder = _named_root(source, document)
        if folder is None:
            named = (source.path.parent if source.path is not None else base) / text
            what = "is not a folder" if probe.exists(named) else "does not exist"
            errors.append(_error(source.shown, line, f"root {text!r} {what} (it is relative to this file)"))
            continue
        root = folder
    return root


def _named_root(source: _Source, document: Document) -> Path | None:
    """The folder a file's `root:` names, relative to the file; None if none or not a folder."""
    if document.root is None or source.path is None:
        return None
    folder = source.path.parent / document.root[0]
    return folder if probe.is_dir(folder) else None


def _collect(
    source: _Source,
    stack: list[str],
    errors: list[ConfigError],
    ordered: list[tuple[_Source, Document]],
    cwd: Path,
    done: set[str],
    read: list[tuple[str, str]],
    inside: tuple[Path, ...],
) -> None:
    """Depth-first over `extends`, parents before children, each file once; `read` gets
    each source's digest; an extended file must lie inside one of the folders `inside`
    (where the configuration was found and the project root its `root:` names) or the git
    work tree that encloses the first of them."""
    from import_policy.config.validate import ConfigError, Validator
    from import_policy.config.yamltree import Scalar, YamlError, parse
    from import_policy.kinds.registry import BUILTIN_IDS, KINDS

    key = source.preset and f"preset:{source.preset}" or str(source.path.resolve() if source.path else "")
    if key in done:
        return
    if source.path is not None:
        try:
            data = source.path.read_bytes()
            text = _text(data)
        except (OSError, UnicodeDecodeError) as error:
            errors.append(ConfigError(source.shown, 0, f"cannot read the configuration: {error}"))
            return
    else:
        data = preset_bytes(source.preset or "") or b""
        text = _text(data)
    read.append((key, digest(data)))
    validator = Validator(source.shown, KINDS, BUILTIN_IDS)
    try:
        tree = parse(text)
    except YamlError as error:
        errors.append(ConfigError(source.shown, error.line, error.message))
        return
    if (tree is None or isinstance(tree, Scalar) and tree.value is None) and source.path is not None:
        errors.append(ConfigError(
            source.shown, 0,
            "the configuration is empty (or only comments), so it checks nothing; "
            "declare rules, rocm_safety or extends (e.g. extends: [rocm-safety])",
        ))
        return
    document = validator.document(tree)
    errors.extend(validator.errors)
    if not stack:
        # The top file's `root:` decides what "inside the project root" means for its extends.
        named = _named_root(source, document)
        if named is not None:
            inside = (*inside, named)
    stack = [*stack, key]
    for target, line in document.extends:
        child = _resolve_extends(target, source, cwd, inside)
        if isinstance(child, str):
            errors.append(ConfigError(source.shown, line, f"extends {target!r}: {child}"))
            continue
        if child is None:
            errors.append(
                ConfigError(
                    source.shown, line,
                    f"unknown extends {target!r}: not a built-in preset ({', '.join(presets())}) "
                    "nor an existing .yaml file relative to this one",
                )
            )
            continue
        child_key = child.preset and f"preset:{child.preset}" or str(child.path.resolve() if child.path else "")
        if child_key in stack:
            cycle = " -> ".join([*stack[stack.index(child_key):], child_key])
            errors.append(ConfigError(source.shown, line, f"circular extends: {cycle}"))
            continue
        if len(stack) >= MAX_EXTENDS_DEPTH:
            errors.append(ConfigError(source.shown, line, f"extends nests deeper than {MAX_EXTENDS_DEPTH} files"))
            continue
        _collect(child, stack, errors, ordered, cwd, done, read, inside)
    done.add(key)
    ordered.append((source, document))


OUTSIDE_EXTENDS = (
    "an absolute path is refused; extends takes a built-in preset or a YAML file inside the repository "
    "(the project root where there is no git work tree), relative to this file"
)


def _repository(folder: Path) -> Path | None:
    """The git work tree enclosing `folder`, as git says; None where there is none (or no git)."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True, text=True, timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    top = done.stdout.strip()
    return Path(top) if done.returncode == 0 and top else None


def _resolve_extends(target: str, source: _Source, cwd: Path, inside: tuple[Path, ...]) -> _Source | str | None:
    """The source `target` names; a refusal (str) for a file outside the project root, which
    is never read (a pull request's `extends` must not read the runner's files); None if unknown."""
    looks_like_path = "/" in target or target.endswith((".yaml", ".yml"))
    if not looks_like_path:
        return _Source(f"preset:{target}", None, target) if target in presets() else None
    if source.path is None:
        return None  # presets extend presets only
    if os.path.isabs(target):
        return OUTSIDE_EXTENDS
    path = (source.path.parent / target)
    real = os.path.realpath(path)
    if not any(_within(real, os.path.realpath(folder)) for folder in inside):
        # A monorepo's shared base lies above the project: the repository bounds what may be read.
        repository = _repository(inside[0])
        if repository is None:
            return "it leaves the project root (there is no git work tree around it to share a base from)"
        if not _within(real, os.path.realpath(repository)):
            return "it leaves the repository (the git work tree holding the project)"
    if not probe.is_file(path):
        return None
    return _Source(_shown(path, cwd), path, None)


def _within(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def _merge(root: Path, ordered: list[tuple[_Source, Document]], read: list[tuple[str, str]] | None = None) -> Policy:
    """Later files win: a rule id declared again replaces the earlier rule, rocm_safety merges key by key."""
    from import_policy.kinds.registry import BUILTIN_IDS

    rules: dict[str, Rule] = {}
    exclude = []
    roots: list[str] | None = None
    packages: list[tuple[str, str]] | None = None
    rocm = _RocmMerge()
    platforms = PlatformMerge()
    switches: dict[str, list[tuple[str, ConfigError]]] = {"ignore": [], "enable": []}
    target: tuple[int, int] | None = None
    follow: Follow | None = None
    for source, document in ordered:
        if document.target_version is not None:
            target = document.target_version
        follow = _follow(follow, source, document)
        for key, ids in (("ignore", document.ignore), ("enable", document.enable)):
            switches[key].extend((rule_id, _error(source.shown, line, "")) for rule_id, line in ids)
        for rule in document.rules:
            rules.pop(rule.id, None)
            rules[rule.id] = rule
        exclude.extend(document.exclude)
        if document.roots is not None:
            roots = document.roots
        if document.packages is not None:
            packages = [(name, folder) for name, folder, _ in document.packages]
        if document.rocm_line:
            rocm.add(source.shown, document.rocm_line, document.rocm_safety)
        platforms.add(source.shown, document.platforms)
    if roots is None:
        roots = ["."] + (["src"] if probe.is_dir(root / "src") else [])
    if packages is None:
        packages = _package_dirs(root, read)
    # A package kept in a folder of another name is a root of its own (project.modules).
    roots = [
        *roots, *(folder for name, folder in packages if not name and folder not in roots),
        *(f"{folder}={name}" for name, folder in packages if name),
    ]
    # Read only where a lazy import's judge needs it: its pyproject.toml then joins the sources.
    judged = rocm.origin is not None or any(rule.kind == "import-time" for rule in rules.values())
    python = target or _requires_python(root, read) if judged else OLDEST_PYTHON
    rocm_safety = rocm.settings(python)
    _check_switches(switches, {rule.id for rule in rules.values()} | set(BUILTIN_IDS))
    _check_in_force(rocm, rocm_safety, rules, switches, ordered[-1][0].path is not None if ordered else False)
    profiles = _platforms(platforms, rocm, rocm_safety, rules.values())
    return Policy(
        root=root,
        rules=tuple(rules.values()),
        rocm_safety=rocm_safety,
        exclude=tuple(exclude),
        roots=tuple(roots),
        sources=tuple(source.shown for source, _ in ordered),
        ignore=tuple(dict.fromkeys(rule_id for rule_id, _ in switches["ignore"])),
        enable=tuple(dict.fromkeys(rule_id for rule_id, _ in switches["enable"])),
        target_version=target,
        python=python,
        follow=follow,
        platforms=profiles,
    )


def _platforms(
    platforms: PlatformMerge, rocm: _RocmMerge, rocm_safety: RocmSafety | None, rules: Iterable[Rule],
) -> tuple[Profile, ...]:
    """The declared profiles, resolved; every rule's `platform:` checked against them."""
    profiles, errors = platforms.resolve(rocm_safety)
    errors += check_rules(rules, platforms.declared)
    if rocm.unanchored is not None:
        errors.append(_error(
            rocm.unanchored.source, rocm.unanchored.line,
            "extend_entry_modules adds to rocm_safety.entry_modules, which no file sets (by default the entry "
            "modules are the project's top-level packages, found in the tree): set entry_modules instead",
        ))
    if errors:
        raise ConfigErrors(errors)
    return profiles


def _follow(before: Follow | None, source: _Source, document: Document) -> Follow | None:
    """`environment:` and `follow:` across `extends`: a later file replaces what it gives. The
    interpreter's path is relative to the file that names it (a preset names none)."""
    if document.environment is None and document.follow is None:
        return before
    python = before.python if before is not None else None
    if document.environment is not None and source.path is not None:
        python = os.path.normpath(os.path.join(source.path.parent.absolute(), document.environment[0]))
    if document.follow is not None:
        names = tuple(name for name, _ in document.follow if name != "*")
        lines = tuple(line for name, line in document.follow if name != "*")
        every = any(name == "*" for name, _ in document.follow)
        return Follow(names, every, python, Origin(source.shown, document.follow_line), lines)
    if before is not None:
        return replace(before, python=python)
    return Follow((), False, python, Origin(source.shown, document.environment_line))


class _RocmMerge:
    """`rocm_safety` across `extends`: a map (`NameMap`) merges name by name, later files
    adding and replacing names and `name: false` removing one; a list replaces the earlier
    one. Generic over the keys, so a new map key merges the same way."""

    def __init__(self) -> None:
        self.origin: Origin | None = None
        self.maps: dict[str, dict[str, tuple[object, Origin]]] = {}
        self.removed: dict[tuple[str, str], Origin] = {}
        self.lists: dict[str, list[tuple[object, Origin]]] = {}
        # An `extend_entry_modules` that no `entry_modules` came before: the pass's default
        # (the top-level packages) is the tree's, not a list it could add to.
        self.unanchored: Origin | None = None
        self.heavy_line = 0  # the line of the last `heavy_modules` key, in the origin's file

    def add(self, source: str, line: int, settings: dict[str, tuple[object, int]]) -> None:
        self.origin = Origin(source, line)
        self.heavy_line = settings["heavy_modules"][1] if "heavy_modules" in settings else 0
        # A list's `extend_` key adds to the list as merged so far, the file's own list included.
        for key, (value, _) in sorted(settings.items(), key=lambda item: item[0].startswith(EXTEND)):
            if key.startswith(EXTEND):
                if key == "extend_entry_modules" and "entry_modules" not in self.lists:
                    self.unanchored = Origin(source, settings[key][1])
                listed = self.lists.setdefault(key[len(EXTEND):], [])
                known = {entry for entry, _ in listed}
                listed.extend((entry, Origin(source, at)) for entry, at in value if entry not in known)  # type: ignore[attr-defined]
            elif isinstance(value, dict):
                merged = self.maps.setdefault(key, {})
                for name, (held, at) in value.items():
                    given = name in merged
                    merged.pop(name, None)  # a name given again takes its place at the end
                    # `values` says what a name holds: `false` there removes only a name given before
                    if held is False and (key != "values" or given):
                        self.removed[(key, name)] = Origin(source, at)
                    else:
                        self.removed.pop((key, name), None)
                        merged[name] = (held, Origin(source, at))
            else:
                self.lists[key] = [(entry, Origin(source, at)) for entry, at in value]  # type: ignore[attr-defined]
                if key == "entry_modules":
                    self.unanchored = None

    def settings(self, python: tuple[int, int]) -> RocmSafety | None:
        from import_policy.patterns import DottedPattern

        if self.origin is None:
            return None
        heavy = self.maps.get("heavy_modules", {})
        probes = self.maps.get("probes", {})
        origins = [(key, name, origin) for key, names in self.maps.items() for name, (_, origin) in names.items()]
        origins += [(key, str(getattr(entry, "text", entry)), origin) for key, entries in self.lists.items() for entry, origin in entries]

        def listed(key: str) -> tuple[object, ...]:
            return tuple(entry for entry, _ in self.lists.get(key, ()))

        return RocmSafety(
            heavy_modules=tuple(DottedPattern.compile(name) for name in heavy),
            probes=tuple((name, value if isinstance(value, str) else None) for name, (value, _) in probes.items()),
            guards=listed("guards"),  # type: ignore[arg-type]
            files=listed("files"),  # type: ignore[arg-type]
            entry_modules=listed("entry_modules"),  # type: ignore[arg-type]
            origin=self.origin,
            rocm=listed("rocm"),  # type: ignore[arg-type]
            reasons=tuple((name, value) for name, (value, _) in heavy.items() if isinstance(value, str)),
            origins=tuple(origins),
            removed=tuple((key, name, origin) for (key, name), origin in self.removed.items()),
            values=tuple((name, value) for name, (value, _) in self.maps.get("values", {}).items()),  # type: ignore[misc]
            python=python,
            installed="environment" if "environment" in listed("installed") else "any",
        )


def _package_dirs(root: Path, read: list[tuple[str, str]] | None) -> list[tuple[str, str]]:
    """`[tool.setuptools.package-dir]` of the project root's pyproject.toml, as (package,
    folder): `kt_kernel = "python"` keeps package kt_kernel in python/. The empty name (every
    package under one folder, `"" = "src"`) is a root, `src=`. The file joins the policy's
    sources (read by `_requires_python` too), so the caches see it change."""
    table = _pyproject(root, read).get("tool", {})
    found = table.get("setuptools", {}).get("package-dir", {}) if isinstance(table, dict) else {}
    if not isinstance(found, dict):
        return []
    out = []
    for name, folder in found.items():
        if isinstance(name, str) and isinstance(folder, str) and (not name or all(p.isidentifier() for p in name.split("."))):
            folder = folder.strip("/") or "."
            if not folder.startswith("/") and ".." not in folder.split("/"):
                out.append((name, folder))
    return out


def _pyproject(root: Path, read: list[tuple[str, str]] | None) -> dict[str, Any]:
    """The project root's pyproject.toml as data ({} where there is none, or it is not TOML);
    recorded in `read` (its digest, or that it is absent) once."""
    pyproject = root / "pyproject.toml"
    try:
        data = pyproject.read_bytes()
    except OSError:
        if read is not None and not os.path.lexists(pyproject) and (str(pyproject.absolute()), ABSENT) not in read:
            read.append((str(pyproject.absolute()), ABSENT))  # one added later must be read
        return {}
    if read is not None and (str(pyproject.resolve()), digest(data)) not in read:
        read.append((str(pyproject.resolve()), digest(data)))
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


# The oldest Python a project supports when nothing says: the oldest this tool runs on.
OLDEST_PYTHON = (3, 10)
_LOWER_BOUND = re.compile(r"^\s*(>=|~=|==|===|>)\s*3\.(\d+)")


def _requires_python(root: Path, read: list[tuple[str, str]] | None) -> tuple[int, int]:
    """The lower bound of `requires-python` in the project root's pyproject.toml (the highest
    of its `>=`, `~=`, `==` and `>` clauses), else 3.10. The file joins the policy's sources,
    so the caches see it change."""
    pyproject = root / "pyproject.toml"
    try:
        data = pyproject.read_bytes()
    except OSError:
        if read is not None and not os.path.lexists(pyproject):
            # One added later must be read: its `requires-python` can make `lazy import` lazy.
            read.append((str(pyproject.absolute()), ABSENT))
        return OLDEST_PYTHON
    if read is not None:
        read.append((str(pyproject.resolve()), digest(data)))
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        project = tomllib.loads(data.decode("utf-8")).get("project")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return OLDEST_PYTHON
    spec = project.get("requires-python") if isinstance(project, dict) else None
    if not isinstance(spec, str):
        return OLDEST_PYTHON
    bounds = [(3, int(found.group(2))) for clause in spec.split(",") if (found := _LOWER_BOUND.match(clause))]
    return max(bounds) if bounds else OLDEST_PYTHON


def _check_in_force(
    rocm: _RocmMerge, rocm_safety: RocmSafety | None, rules: dict[str, Rule],
    switches: dict[str, list[tuple[str, ConfigError]]], written: bool,
) -> None:
    """A configuration that checks nothing fails: a `rocm_safety` left with no heavy module
    (each of the pass's rules reports a heavy module), or an `ignore:` that turns off every
    rule the configuration brings in. The built-in preset alone (no file) is never refused."""
    from import_policy.kinds.registry import BUILTIN

    if not written:
        return
    errors: list[ConfigError] = []
    if rocm_safety is not None and rocm.origin is not None and not rocm_safety.heavy_modules:
        errors.append(_error(
            rocm.origin.source, rocm.heavy_line or rocm.origin.line,
            "rocm_safety declares no heavy module (after extends), so the ROCm pass checks nothing; "
            "add heavy_modules: [...] (the modules a ROCm process must not import) or extends: [rocm-safety]",
        ))
    ignored = {rule_id for rule_id, _ in switches["ignore"]}
    if ignored and not errors:
        enabled = {rule_id for rule_id, _ in switches["enable"]}
        brought = set(rules) | enabled | {
            b.id for b in BUILTIN if b.needs_rocm and rocm_safety is not None and not b.opt_in
        }
        if brought and brought <= ignored:
            where = switches["ignore"][-1][1]
            errors.append(_error(
                where.source, where.line,
                f"ignore: turns off every rule of the configuration ({', '.join(sorted(brought))}), so it checks "
                "nothing; remove some ids from ignore (or the configuration itself)",
            ))
    if errors:
        raise ConfigErrors(errors)


def _check_switches(switches: dict[str, list[tuple[str, ConfigError]]], known: set[str]) -> None:
    """`ignore:` and `enable:` name rules that exist, declared (in any file) or built in."""
    errors: list[ConfigError] = []
    for key, entries in switches.items():
        for rule_id, where in entries:
            if key == "ignore" and rule_id == "syntax-error":
                message = "syntax-error cannot be ignored: a file that does not parse is never passed silently"
            elif rule_id not in known:
                message = f"{key}: unknown rule {rule_id!r}; rules: {', '.join(sorted(known))}"
            else:
                continue
            errors.append(_error(where.source, where.line, message))
    if errors:
        raise ConfigErrors(errors)
