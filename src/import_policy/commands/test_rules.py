"""`import-policy test-rules`: every rule's `examples` run through the real engine.

Each snippet is checked as an in-memory file at a path where the rule applies
(derived from `files` and `allow_in`), with only that rule in force: a `flag`
snippet must give at least one finding of the rule, an `allow` snippet none.
An `import-time` rule's snippet is a small project (`example_files`), written to a
scratch folder and checked there, since its findings come from the import graph.
Nothing is imported or run.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from import_policy.commands import EXIT_OK, EXIT_VIOLATIONS, discard_stdout
from import_policy.config.model import Policy, Rule
from import_policy.diagnostics import SYNTAX_ERROR
from import_policy.discovery.files import Language, SourceFile, language_of
from import_policy.facts.source.syntax import newest_check
from import_policy.kinds.registry import kind_of
from import_policy.kinds.syntax import syntax_error
from import_policy.pipeline.plan import Plan, Selection
from import_policy.pipeline.extract import Reader
from import_policy.pipeline.engine import run
from import_policy.kinds.import_time import ImportTimeRule
from import_policy.kinds.contracts.common import ContractRule
from import_policy.kinds.contracts.kinds import named_modules

_FILLERS = ("example", "sample", "other_module")
_CLASS = re.compile(r"\[(!|\^)?([^\]]*)\]")


@dataclass(frozen=True)
class Failure:
    rule: Rule
    which: str  # "flag" or "allow"
    number: int  # 1-based within its list
    line: int  # of the snippet in the YAML
    snippet: str
    why: str

    def __str__(self) -> str:
        first = self.snippet.strip().split("\n")[0]
        more = " ..." if "\n" in self.snippet.strip() else ""
        return f"{self.rule.origin.source}:{self.line}: {self.rule.id}: {self.which} example {self.number} {self.why}: {first}{more}"


def _suffix(rule: Rule) -> str:
    return ".py" if kind_of(rule).language == "python" else ".cpp"


def _fill(glob: str, filler: str) -> str:
    body = glob.rstrip("/")
    body = _CLASS.sub(lambda m: "z" if m.group(1) else (m.group(2)[:1] or "z"), body)
    parts = [filler if part == "**" else part.replace("*", filler).replace("?", "x") for part in body.split("/")]
    return "/".join(parts)


def _candidates(rule: Rule) -> Iterator[str]:
    suffix = _suffix(rule)
    globs = [g.text for g in rule.files] or ["**"]
    for filler in _FILLERS:
        for glob in globs:
            path = _fill(glob, filler)
            yield path
            yield f"{path}/{filler}{suffix}"
            if "." not in path.rsplit("/", 1)[-1]:
                yield f"{path}{suffix}"
        yield f"{filler}{suffix}"


def sample_path(rule: Rule) -> str | None:
    """A root-relative path of the rule's language where the rule applies."""
    language = kind_of(rule).language
    for path in _candidates(rule):
        if language_of(path) == language and rule.applies_to(path):
            return path
    return None


def check_rule(policy: Policy, rule: Rule) -> tuple[int, list[Failure]]:
    """(examples run, failures) for one rule."""
    examples = rule.examples
    cases = [("flag", i, s) for i, s in enumerate(examples.flag)] + [("allow", i, s) for i, s in enumerate(examples.allow)]
    if not cases:
        return 0, []
    lines = {"flag": examples.flag_lines, "allow": examples.allow_lines}

    def line_of(which: str, index: int) -> int:
        known = lines[which]
        return known[index] if index < len(known) else rule.origin.line

    path = sample_path(rule)
    if path is None:
        why_not = "cannot run: no path of its language is covered by files and not by allow_in"
        return len(cases), [Failure(rule, w, i + 1, line_of(w, i), s, why_not) for w, i, s in cases]
    if isinstance(rule, (ImportTimeRule, ContractRule)):
        failures = [
            Failure(rule, which, index + 1, line_of(which, index), snippet, why)
            for which, index, snippet in cases
            for why in [project_example(policy, rule, which, snippet)] if why is not None
        ]
        return len(cases), failures
    alone = replace(policy, rules=(rule,), rocm_safety=None)
    plan = Plan(alone, Selection())
    language: Language = kind_of(rule).language
    failures = []
    for which, index, snippet in cases:
        source = (snippet if snippet.endswith("\n") else snippet + "\n").encode()
        file = SourceFile(policy.root / path, path, language)
        found = run(plan, [file], read=_constant(source)).diagnostics
        why: str | None = None
        broken = [d for d in found if d.rule == SYNTAX_ERROR]
        if not broken and language == "python":
            # A snippet no rule needs is not parsed by a check; an example must parse all the same.
            error = newest_check(source, path)
            broken = [syntax_error(path, error)] if error is not None else []
        mine = [d for d in found if d.rule == rule.id]
        if broken:
            why = f"does not parse ({broken[0].message}, line {broken[0].line})"
        elif which == "flag" and not mine:
            why = f"gives no finding in {path}"
        elif which == "allow" and mine:
            d = mine[0]
            why = f"is reported in {path} at {d.line}:{d.column} ({d.message})"
        if why is not None:
            failures.append(Failure(rule, which, index + 1, line_of(which, index), snippet, why))
    return len(cases), failures


# A multi-file example: each file starts at a line `# file: PATH` (root-relative).
_FILE_MARK = "# file: "


def example_files(
    rule: ImportTimeRule | ContractRule, snippet: str, roots: tuple[str, ...] = (".",),
) -> dict[str, str] | str:
    """The files of an `import-time` example (else why it is malformed). A snippet that
    starts with `# file: PATH` holds one file per such line; any other snippet is the file
    of the rule's first entry module (`vllm` -> `vllm/__init__.py`, under the first of `roots`). Folders get an empty
    `__init__.py` where the example gives none, so each file is a module of its package."""
    lines = snippet.split("\n")
    files: dict[str, list[str]] = {}
    if lines[0].startswith(_FILE_MARK):
        current: list[str] = []
        for line in lines:
            if line.startswith(_FILE_MARK):
                path = line[len(_FILE_MARK):].strip()
                parts = path.split("/")
                if not path.endswith(".py") or path.startswith("/") or any(part in ("", ".", "..") for part in parts):
                    return f"names {path!r}, not a relative .py path inside the project"
                current = files.setdefault(path, [])
            else:
                current.append(line)
    elif isinstance(rule, ContractRule):
        return f"is no project: a contract's example starts with `{_FILE_MARK}PATH` and holds one file per such line"
    else:
        parts = rule.entry[0].split(".")
        root = roots[0].strip("/") if roots and roots[0] not in (".", "") else ""
        path = "/".join([*([root] if root else []), *parts]) + ("/__init__.py" if len(parts) == 1 else ".py")
        files[path] = lines
    out = {path: "\n".join(body).rstrip("\n") + "\n" for path, body in files.items()}
    if isinstance(rule, ContractRule):
        # Every module the contract names exists in the example's project (empty where its
        # files give none): a missing one is a configuration error of the real project's.
        root = roots[0].strip("/") if roots and roots[0] not in (".", "") else ""
        for module in named_modules(rule):
            stem = "/".join([*([root] if root else []), *module.split(".")])
            if f"{stem}.py" not in out:
                out.setdefault(f"{stem}/__init__.py", "")
    roots_ = {root.strip("/") for root in roots if root not in (".", "")}
    for path in list(out):
        folders = path.split("/")[:-1]
        for depth in range(1, len(folders) + 1):
            if "/".join(folders[:depth]) not in roots_:  # a root folder is no package
                out.setdefault("/".join(folders[:depth]) + "/__init__.py", "")
    return out


def project_example(policy: Policy, rule: ImportTimeRule | ContractRule, which: str, snippet: str) -> str | None:
    """Why an `import-time` or contract example fails (None: it passes), checked as a small
    project of its own in a scratch folder, with only the rule in force: its findings come from
    the graph. A contract's `ignore_imports` are the real project's: one the example does not
    spell is no finding of the example."""
    if isinstance(rule, ContractRule):
        rule = replace(rule, unmatched_ignore_imports="none")
    files = example_files(rule, snippet, policy.roots)
    if isinstance(files, str):
        return files
    with tempfile.TemporaryDirectory(prefix="import-policy-example-") as folder:
        root = Path(folder).resolve()
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
            error = newest_check(text.encode(), path)
            if error is not None:
                return f"does not parse ({path}: {error.message}, line {error.line})"
        alone = replace(policy, root=root, rules=(rule,), exclude=())
        plan = Plan(alone, Selection(select=frozenset({rule.id})))
        checked = [SourceFile(root / path, path, "python") for path in sorted(files)]
        found = [d for d in run(plan, checked).diagnostics if d.rule == rule.id]
    if which == "flag" and not found:
        if isinstance(rule, ContractRule):
            return "gives no finding: no chain of its files breaks the contract"
        return f"gives no finding importing {', '.join(rule.entry)}"
    if which == "allow" and found:
        d = found[0]
        return f"is reported in {d.path} at {d.line}:{d.column} ({d.message})"
    return None


def _constant(source: bytes) -> Reader:
    return lambda _file: source


def run_all(*policies: Policy) -> tuple[str, bool]:
    """(the report, whether every example passed); a rule several configurations share (a
    monorepo's base, declared once) is run once."""
    total = rules_with = 0
    failures: list[Failure] = []
    seen: set[tuple[str, int]] = set()
    for policy in policies:
        for rule in policy.rules:
            if (rule.origin.source, rule.origin.line) in seen:
                continue
            seen.add((rule.origin.source, rule.origin.line))
            count, failed = check_rule(policy, rule)
            if count:
                rules_with += 1
                total += count
                failures.extend(failed)
    lines = [str(f) for f in failures]
    if total == 0:
        lines.append("No rule has examples.")
    elif failures:
        lines.append(f"{len(failures)} of {_count(total, 'example')} of {_count(rules_with, 'rule')} failed.")
    else:
        lines.append(f"All {_count(total, 'example')} of {_count(rules_with, 'rule')} passed.")
    return "\n".join(lines) + "\n", not failures


def command(*policies: Policy) -> int:
    """`test-rules`: the report on stdout; exit 1 when an example failed."""
    report, passed = run_all(*policies)
    try:
        sys.stdout.write(report)
        sys.stdout.flush()
    except BrokenPipeError:
        discard_stdout()  # the reader went away; the exit code still says whether all passed
    return EXIT_OK if passed else EXIT_VIOLATIONS


def command_over(config: Path | None, paths: list[Path], cwd: Path) -> int:
    """`test-rules [PATH ...]`: the examples of every configuration `check` would use there,
    a rule a shared base declares run once; with no configuration found it fails (exit 2):
    a CI job that tests nothing must not pass."""
    from import_policy.commands import EXIT_ERROR
    from import_policy.commands.configs import configurations, none_found

    every = configurations(config, paths, cwd, quiet=True)
    if every[0].config is None:
        print(f"import-policy: error: {none_found(paths, cwd)}; test-rules has no rule to test", file=sys.stderr)
        return EXIT_ERROR
    return command(*(loaded.policy for loaded in every))


def _count(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
