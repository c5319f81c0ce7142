"""What `check PATH` gives for one file as its buffer stands: every rule, the ROCm pass and
`kind: import-time` (with the hook rule's link findings in the file, as for a file named
on the command line) and `unused-suppression` where it is in force."""

from __future__ import annotations

from pathlib import Path

from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import SourceFile, language_of, relative_to_root
from import_policy.patterns import any_match
from import_policy.server.projects import Project


def source_file(project: Project, path: Path) -> SourceFile | None:
    """The file as the project sees it; None when the project does not check it (outside
    its root, covered by `exclude`, neither Python nor C-family), as a walk would skip it."""
    language = language_of(path.name)
    if language is None:
        return None
    relative = relative_to_root(path, project.root)
    if relative.startswith("../") or any_match(project.policy.exclude, relative) is not None:
        return None
    return SourceFile(project.root / relative, relative, language, named=True)


def lint(project: Project, file: SourceFile) -> list[Diagnostic]:
    from import_policy.pipeline.engine import run

    read = project.graphs.read
    result = run(project.plan, [file], read)
    found = list(result.diagnostics)
    if project.unused:
        from import_policy.pipeline.unused import unused_suppressions

        found += unused_suppressions(project.policy, project.selection, [file], read, project.plan.cache, 1)
    # A reached file elsewhere that does not parse is that file's finding: shown there when open.
    return sorted((d for d in found if d.path == file.relative), key=Diagnostic.sort_key)
