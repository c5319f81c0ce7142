"""The project derivation: the whole project's graph (`reach.Project`) over per-file records.

`known` facts (the files the engine parsed) stand as given; any other file is read and
parsed (or its record taken from the cache) only when a chain or a call reaches it, and not
even then when the prefilter finds nothing in it that could matter (`GraphPlan.wants_parse`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping

from import_policy.discovery.files import SourceFile
from import_policy.facts.prefilter.pytext import python_text
from import_policy.facts.records.model import FileFacts
from import_policy.graph import through
from import_policy.graph.plan import GraphPlan
from import_policy.graph.reach import Project
from import_policy.graph.scoped import ScopedProject
from import_policy.graph.records import Records
from import_policy.graph.store import Inputs, digest
from import_policy.project.modules import ProjectModules, module_name

Reader = Callable[[SourceFile], bytes]
Modules = ProjectModules | through.Modules


def project(
    plan: GraphPlan, known: Mapping[str, FileFacts], read: Reader, cache: Records | None = None,
    modules: Mapping[str, str] | None = None, inputs: Inputs | None = None,
) -> Project:
    """The whole project's graph for `plan.question`: `known` facts as given, other files read
    and parsed (or taken from the cache) when reached. `inputs`, when given, logs every file it
    reads and `modules` is the module map to use (the module graph's logged one)."""
    loader = _Loader(plan, known, read, cache, inputs)
    found = modules if modules is not None else project_modules(plan, known, cache is not None)
    reading = plan.question.reading
    if reading is not None:
        made: Project = ScopedProject(plan.question, found, loader.load, plan.exports, plan.installed, *reading)
    else:
        made = Project(plan.question, found, loader.load, plan.exports, plan.installed)
    made.read_text = loader.text
    return made


class _Loader:
    """A file's facts as the graph reads them, each read logged in `inputs`."""

    def __init__(
        self, plan: GraphPlan, known: Mapping[str, FileFacts], read: Reader, cache: Records | None,
        inputs: Inputs | None,
    ) -> None:
        self.plan = plan
        self.known = known
        self.read = read
        self.cache = cache
        self.inputs = inputs

    def load(self, path: str) -> FileFacts | None:
        facts = self.known.get(path)
        file = SourceFile(self.plan.layout.root / path, path, "python")
        if facts is not None and facts.parsed:
            self._log_known(path, file, facts)
            return facts  # the engine parsed it, for a rule or for this graph
        plan, inputs, cache = self.plan, self.inputs, self.cache
        module, is_package = (
            plan.followed.module_of(path) if plan.followed is not None and plan.followed.owns(path)
            else module_name(file.relative, plan.layout.roots)
        )
        content = inputs.content(path) if inputs is not None else None
        if content is not None and inputs is not None and inputs.how(path) == "s":
            # The prefilter turned these bytes down under these settings (the store's key holds
            # its tokens): nothing to read. No record is kept for it, so none can stand for a
            # parse once a policy change makes the file matter.
            return FileFacts(file.relative, module, is_package)
        if content is not None and cache is not None:
            # Unchanged since the log read it (checked this run): its record, without reading it.
            facts = cache.get(cache.key_of(content, file.relative, module, is_package, plan.cache_mode))
            if facts is not None:
                return facts
        return self._parse(path, file, module, is_package)

    def text(self, path: str) -> bytes | None:
        """A file's bytes for a lazy loader's table read as text (transformers' exports): logged
        as read, so a warm run checks it as it checks a parsed file."""
        inputs = self.inputs
        stat = inputs.stat(path) if inputs is not None else None
        try:
            source: bytes | None = self.read(SourceFile(self.plan.layout.root / path, path, "python"))
        except OSError:
            source = None
        if inputs is not None:
            inputs.file(path, "r", stat, digest(source) if source is not None else None)
        return source

    def _log_known(self, path: str, file: SourceFile, facts: FileFacts) -> None:
        inputs = self.inputs
        if inputs is None or inputs.content(path) is not None:
            return
        stat = inputs.stat(path)
        if facts.content:  # the digest of the bytes the engine parsed
            inputs.file(path, "e", stat, facts.content)
            return
        try:  # facts from elsewhere: their bytes read again, only to be hashed
            inputs.file(path, "e", stat, digest(self.read(file)))
        except OSError:
            inputs.file(path, "e", stat, None)

    def _parse(self, path: str, file: SourceFile, module: str | None, is_package: bool) -> FileFacts | None:
        plan, inputs, cache = self.plan, self.inputs, self.cache
        stat = inputs.stat(path) if inputs is not None else None
        if plan.followed is not None and plan.followed.owns(path):
            through.PROGRESS.read(path)  # a long cold run over dependencies says how far it is
        try:
            source = self.read(file)
        except OSError:
            if inputs is not None:
                inputs.file(path, "r", stat, None)
            return None  # an unreadable file outside the ones passed is not this run's business
        wanted = plan.wants_parse(python_text(source), file.relative)
        if inputs is not None:
            inputs.file(path, "r" if wanted else "s", stat, digest(source))
        if not wanted:
            return FileFacts(file.relative, module, is_package)
        key = cache.key(source, file.relative, module, is_package, plan.cache_mode) if cache is not None else ""
        # Cached as the graph keeps them (slimmed): what a batch decodes for every reached module.
        facts = cache.get(key) if cache is not None else None
        if facts is None:
            from import_policy.facts.cpython.from_ast import graph_facts  # a warm batch parses nothing: never loaded

            facts = graph_facts(source, file.relative, module, is_package, plan.keeps)
            if cache is not None:
                cache.put(key, facts)
        return facts


def project_modules(plan: GraphPlan, known: Mapping[str, FileFacts], remember: bool) -> Modules:
    """The project's module map, then the followed dependencies' modules."""
    found = ProjectModules(plan.layout, known, remember=remember)
    return through.Modules(found, plan.followed) if plan.followed is not None else found


def graph_settings(plan: GraphPlan) -> str | None:
    """Every input the module graph's items are derived from but the files, as a digest; None
    when part of it has no stable form (then the graph is not kept)."""
    layout = plan.layout
    described = repr((
        plan.question, sorted(plan.exports.items()), sorted(plan.project_names), layout.roots, layout.exclude,
        plan.tokens, sorted(plan.import_heads) if plan.import_heads is not None else None, plan.cache_mode,
        plan.followed.identity if plan.followed is not None else None,
        plan.installed.identity if plan.installed is not None else None,
    ))
    if " at 0x" in described:
        return None
    if plan.followed is not None and not plan.followed.settled:
        return None  # a folder listed changed too recently for its stat data to tell a later change
    if plan.installed is not None and plan.question.installed and not plan.installed.settled:
        return None
    return hashlib.blake2b(described.encode(), digest_size=20).hexdigest()


__all__ = ["Modules", "Reader", "graph_settings", "project", "project_modules"]
