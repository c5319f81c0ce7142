"""Each file's nearest configuration, as `check` finds it, and what the server keeps per
configuration: the policy checked against the tree, the run's plan, the facts cache and
the graphs of its project passes. A configuration that does not load is a `Fault`: its errors, each
at its file and line, for the editor to show on that file."""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from import_policy.cache.racy import now_ns, trusted
from import_policy.cache.stat import Stat, stat_of
from import_policy.policy.load import ABSENT, ConfigErrors, Loaded, digest, find_config, load, source_bytes
from import_policy.config.model import Policy
from import_policy.pipeline.plan import Plan, Selection
from import_policy.graph.build import graph_stores
from import_policy.graph.kept import Graphs, KeptRecords
from import_policy.server.buffers import BufferCache
from import_policy.pipeline.unused import wants_unused_suppression
from import_policy.server.documents import Documents


@dataclass
class Project:
    """One configuration and what is kept for it between edits."""

    loaded: Loaded
    policy: Policy
    selection: Selection
    plan: Plan
    graphs: Graphs
    unused: bool  # `unused-suppression` in force
    warnings: tuple[str, ...] = ()
    _explained: dict[str, str | None] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.policy.root

    def stale(self) -> bool:
        """Whether a file the configuration was built from changed on disk since."""
        return any(digest_now(key) != hashed for key, hashed in self.loaded.read)

    def explain_uri(self, rule_id: str) -> str | None:
        """Where `import-policy explain RULE`'s text for this configuration is, as a file URI
        (written once, beside the other servers' in the temporary folder)."""
        if rule_id not in self._explained:
            self._explained[rule_id] = self._write_explain(rule_id)
        return self._explained[rule_id]

    def _write_explain(self, rule_id: str) -> str | None:
        from import_policy.kinds.describe import describe_rule
        from import_policy.server.documents import uri_of

        text = describe_rule(self.policy, rule_id)
        if text is None:
            return None
        tag = hashlib.blake2b(repr(self.loaded.read).encode(), digest_size=8).hexdigest()
        folder = Path(tempfile.gettempdir()) / f"import-policy-explain-{os.getuid()}" / tag
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            target = folder / f"{rule_id}.md"
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                target.write_text(text, encoding="utf-8")
        except OSError:
            return None
        return uri_of(target)


@dataclass(frozen=True)
class Fault:
    """A configuration that does not load: (file, line, message) for each error (line 0: the file as a whole)."""

    errors: tuple[tuple[Path, int, str], ...]

    def sources(self) -> dict[str, str | None]:
        """The files whose errors it shows (no digest: any change to them may fix it)."""
        return {str(path): None for path, _, _ in self.errors}


class Projects:
    """Configurations by file, loaded on first need and dropped when they change."""

    def __init__(self, documents: Documents, workspace: Path) -> None:
        self.documents = documents
        self.workspace = workspace
        self._by_config: dict[str, Project | Fault] = {}
        self._config_of: dict[Path, tuple[str, Path]] = {}  # folder -> (key, where to load from)
        # Configuration file -> its stat data and when it was taken, known to stand for the
        # bytes the loaded configuration was built from (or a fault found in).
        self._seen: dict[str, tuple[Stat | None, int]] = {}

    def loaded(self) -> list[Project]:
        return [p for p in self._by_config.values() if isinstance(p, Project)]

    def faults(self) -> list[Fault]:
        return [p for p in self._by_config.values() if isinstance(p, Fault)]

    def for_file(self, path: Path) -> Project | Fault:
        folder = path.parent
        found = self._config_of.get(folder)
        if found is None:
            try:
                nearest = find_config(folder, folder)
            except ConfigErrors as errors:
                return _fault(errors, folder)
            if nearest is not None:
                found = (str(nearest[0]), nearest[1])
            else:  # the built-in preset, rooted where `check` would be run: the workspace
                base = self.workspace if folder.is_relative_to(self.workspace) else folder
                found = (f"preset:{base}", base)
            self._config_of[folder] = found
        key, base = found
        project = self._by_config.get(key)
        if project is None:
            before = stat_of(key) if not key.startswith("preset:") else None  # before it is read
            project = self._build(base)
            self._by_config[key] = project
            if isinstance(project, Fault):  # its files as read: a write since (or during) moves them
                for source in project.sources():
                    self._seen.setdefault(source, (before if source == key else stat_of(source), 0))
        return project

    def _build(self, base: Path) -> Project | Fault:
        from import_policy.policy.tree import against_tree

        try:
            loaded = load(None, base)
            checked = against_tree(loaded.policy)
        except ConfigErrors as errors:
            return _fault(errors, base)
        policy = checked.policy
        selection = Selection().under(policy)
        root = policy.root
        cache = BufferCache(root, lambda relative: self.documents.at(root / relative) is not None)
        plan = Plan(policy, selection, cache=cache)
        # The graphs `check` stored are loaded, with the open buffers standing for their files.
        graphs = Graphs(self.documents.read, KeptRecords(cache), graph_stores(cache), self._buffers)
        plan.graphs = graphs
        unused = wants_unused_suppression(selection)
        return Project(loaded, policy, selection, plan, graphs, unused, checked.warnings)

    def _buffers(self) -> dict[Path | str, bytes]:
        return {buffer.path: buffer.data for buffer in self.documents}

    def reset(self) -> None:
        """Forget every configuration: each is found and loaded again on next need."""
        self._by_config.clear()
        self._config_of.clear()
        self._seen.clear()

    def moved_on_disk(self) -> bool:
        """For an editor that does not watch files: whether a file a configuration was built
        from changed on disk, looked at by its stat data (git's racy-clean rule: data that
        cannot tell is settled by the file's bytes); the changed configurations are dropped."""
        since = now_ns()  # before any stat data or byte is looked at
        suspect = False
        for path, hashed in self._sources().items():
            now = stat_of(path)
            seen = self._seen.get(path)
            if seen is not None and (now is seen[0] is None or seen[0] is not None and trusted(now, seen[0], seen[1])):
                continue  # still absent, or stat data that stands for the bytes last looked at
            if hashed is None:  # a fault's file: known from its first look on, any move refreshes
                suspect = suspect or (seen is not None and seen[0] != now)
            else:
                suspect = suspect or digest_now(path) != hashed
            self._seen[path] = (now, since)
        return suspect and self.changed_on_disk()

    def _sources(self) -> dict[str, str | None]:
        found: dict[str, str | None] = {}
        for project in self._by_config.values():
            if isinstance(project, Fault):
                found.update(project.sources())
            else:
                found.update((key, hashed) for key, hashed in project.loaded.read if not key.startswith("preset:"))
        return found

    def changed_on_disk(self) -> bool:
        """Drop the configurations whose files changed (and every fault, which may be fixed
        now); whether anything was dropped."""
        dropped = False
        for key, project in list(self._by_config.items()):
            if isinstance(project, Fault) or project.stale():
                del self._by_config[key]
                dropped = True
        if dropped:
            self._config_of.clear()
            self._seen.clear()
        return dropped


def digest_now(key: str) -> str | None:
    """A source's digest as `Loaded.read` holds it (ABSENT for a file not there), now."""
    data = source_bytes(key)
    if data is None:
        return ABSENT if not key.startswith("preset:") and not os.path.lexists(key) else None
    return digest(data)


def _fault(errors: ConfigErrors, base: Path) -> Fault:
    out = []
    for error in errors.errors:
        source = Path(error.source)
        where = source if source.is_absolute() else Path(os.path.normpath(base / source))
        out.append((where, error.line, error.message))
    return Fault(tuple(out))
