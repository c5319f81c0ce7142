"""Each file's nearest configuration, as `check` finds it, and what the server keeps per
configuration: the policy checked against the tree, the run's plan, the facts cache and
the graphs of its project passes. A configuration that does not load is a `Fault`: its errors, each
at its file and line, for the editor to show on that file."""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from import_policy.policy.load import ConfigErrors, Loaded, digest, find_config, load, source_bytes
from import_policy.config.model import Policy
from import_policy.pipeline.plan import Plan, Selection
from import_policy.graph.kept import Graphs, KeptRecords, prefilter_settings
from import_policy.server.buffers import BufferCache
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
        for key, hashed in self.loaded.read:
            data = source_bytes(key)
            if data is None or digest(data) != hashed:
                return True
        return False

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


class Projects:
    """Configurations by file, loaded on first need and dropped when they change."""

    def __init__(self, documents: Documents, workspace: Path) -> None:
        self.documents = documents
        self.workspace = workspace
        self._by_config: dict[str, Project | Fault] = {}
        self._config_of: dict[Path, tuple[str, Path]] = {}  # folder -> (key, where to load from)

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
            project = self._build(base)
            self._by_config[key] = project
        return project

    def _build(self, base: Path) -> Project | Fault:
        from import_policy.commands.check import wants_unused_suppression
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
        graphs = Graphs(self.documents.read, KeptRecords(cache, prefilter_settings(plan.graph)))
        plan.graphs = graphs
        unused = wants_unused_suppression(selection, argparse.Namespace())
        return Project(loaded, policy, selection, plan, graphs, unused, checked.warnings)

    def reset(self) -> None:
        """Forget every configuration: each is found and loaded again on next need."""
        self._by_config.clear()
        self._config_of.clear()

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
        return dropped


def _fault(errors: ConfigErrors, base: Path) -> Fault:
    out = []
    for error in errors.errors:
        source = Path(error.source)
        where = source if source.is_absolute() else Path(os.path.normpath(base / source))
        out.append((where, error.line, error.message))
    return Fault(tuple(out))
