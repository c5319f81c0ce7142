"""Baselines: adopt a policy on a legacy tree by recording today's violations.

An entry is keyed on (rule, path, fingerprint) with a count, never on line
numbers: the fingerprint hashes the reported line's text with whitespace
collapsed and the reported name (not the message, which a policy may reword), so edits elsewhere in the file that shift
lines do not disturb it. Matching is a multiset: three recorded findings of one
key suppress at most three. Recorded entries that match nothing any more are
handed back as stale, so the baseline only shrinks.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from import_policy.diagnostics import Diagnostic

VERSION = 1
_SPACE = re.compile(r"\s+")

Key = tuple[str, str, str]  # rule, path (relative to the baseline's folder), fingerprint
SourceOf = Callable[[str], "bytes | None"]  # root-relative path -> the bytes that were checked


class BaselineError(Exception):
    """A baseline file that cannot be read or is not one of ours."""


def _lines(source: bytes) -> list[str]:
    text = source.decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def statement_text(d: Diagnostic, lines: Sequence[str]) -> tuple[str, str]:
    """(the reported lines, whitespace collapsed; the reported span's own text)."""
    first, last = max(d.line, 1), max(d.end_line, d.line, 1)
    picked = lines[first - 1 : last]
    text = _SPACE.sub(" ", " ".join(picked)).strip()
    span = ""
    if picked and d.end_line == d.line:
        span = picked[0][d.column - 1 : max(d.end_column - 1, d.column - 1)]
    return text, span


def fingerprint(d: Diagnostic, lines: Sequence[str] | None) -> str:
    text, span = statement_text(d, lines) if lines is not None else ("", "")
    digest = hashlib.sha256("\0".join((d.rule, text, span)).encode()).hexdigest()
    return digest[:16]


@dataclass
class Keyed:
    diagnostic: Diagnostic
    key: Key
    text: str
    # A reachability finding's places (its site first, then its links in named files), keyed:
    # an entry at any of them matches it, and it is recorded at its site.
    places: tuple[tuple[Key, str], ...] = ()


def keyed(diagnostics: Iterable[Diagnostic], source_of: SourceOf) -> list[Keyed]:
    cache: dict[str, list[str] | None] = {}

    def lines_of(path: str) -> list[str] | None:
        if path not in cache:
            source = source_of(path)
            cache[path] = _lines(source) if source is not None else None
        return cache[path]

    def key_of(d: Diagnostic) -> tuple[Key, str]:
        lines = lines_of(d.path)
        text = statement_text(d, lines)[0] if lines is not None else ""
        return (d.rule, d.path, fingerprint(d, lines)), text

    out = []
    for d in diagnostics:
        key, text = key_of(d)
        places = tuple(
            key_of(replace(d, path=path, line=line, column=column, end_line=end_line, end_column=end_column))
            for path, line, column, end_line, end_column in d.places
        )
        out.append(Keyed(d, key, text, places))
    return out


def _findings(items: Sequence[Keyed]) -> list[list[Keyed]]:
    """Items grouped by finding: the reports of one reachability finding (same rule, same
    site) are one finding, whatever places they stand at."""
    groups: dict[object, list[Keyed]] = {}
    for number, item in enumerate(items):
        d = item.diagnostic
        groups.setdefault((d.rule, d.places[0]) if d.places else number, []).append(item)
    return list(groups.values())


def recorded(items: Sequence[Keyed]) -> list[tuple[Key, str]]:
    """What a baseline records: each finding once, at its site (the place every run keys it by)."""
    return [group[0].places[0] if group[0].places else (group[0].key, group[0].text) for group in _findings(items)]


def dumps(items: Sequence[Keyed], others: Sequence[Entry] = ()) -> str:
    """`others`: entries kept as they are (of files the run did not check)."""
    kept = recorded(items)
    counts = Counter(key for key, _ in kept)
    texts = {key: text for key, text in kept}
    for entry in others:
        counts[entry.key] += entry.count
        texts.setdefault(entry.key, entry.text)
    entries = [
        {"rule": rule, "path": path, "fingerprint": print_, "count": counts[(rule, path, print_)], "text": texts[(rule, path, print_)]}
        for rule, path, print_ in sorted(counts)
    ]
    return json.dumps({"version": VERSION, "tool": "import-policy", "entries": entries}, indent=2) + "\n"


def write(path: Path, items: Sequence[Keyed], others: Sequence[Entry] = ()) -> None:
    path.write_text(dumps(items, others), encoding="utf-8")


@dataclass(frozen=True)
class Entry:
    rule: str
    path: str
    fingerprint: str
    count: int
    text: str

    @property
    def key(self) -> Key:
        return (self.rule, self.path, self.fingerprint)


def read(path: Path) -> list[Entry]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise BaselineError(f"cannot read the baseline {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BaselineError(f"the baseline {path} is not JSON: {error}") from None
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("entries"), list):
        raise BaselineError(f"the baseline {path} is not an import-policy baseline (version {VERSION}); write one with --write-baseline")
    entries = []
    for number, raw in enumerate(data["entries"], 1):
        try:
            entries.append(Entry(
                str(raw["rule"]), str(raw["path"]), str(raw["fingerprint"]), int(raw.get("count", 1)), str(raw.get("text", ""))
            ))
        except (KeyError, TypeError, ValueError):
            raise BaselineError(f"the baseline {path}: entry {number} needs rule, path, fingerprint and count") from None
    return entries


@dataclass
class Applied:
    kept: list[Diagnostic]  # new findings, not in the baseline
    suppressed: int
    stale: list[tuple[Entry, int]]  # entries (or part of their count) that matched nothing


def apply(
    entries: Sequence[Entry], items: Sequence[Keyed], checked: Callable[[str, str], bool]
) -> Applied:
    """`checked(rule, path)`: whether this run could have reported that rule in that file;
    entries outside the run (other paths, unselected rules) are neither used nor stale."""
    budget: Counter[Key] = Counter()
    for entry in entries:
        budget[entry.key] += entry.count
    kept: list[Diagnostic] = []
    suppressed = 0
    for group in _findings(items):
        keys = [item.key for item in group] + [key for key, _ in group[0].places]
        matched = next((key for key in keys if budget[key] > 0), None)
        if matched is not None:
            budget[matched] -= 1
            suppressed += len(group)
        else:
            kept.extend(item.diagnostic for item in group)
    stale = []
    seen: set[Key] = set()
    for entry in entries:
        if entry.key in seen:
            continue
        seen.add(entry.key)
        if budget[entry.key] > 0 and checked(entry.rule, entry.path):
            stale.append((entry, budget[entry.key]))
    return Applied(kept, suppressed, stale)


def stale_message(baseline: Path, entry: Entry, left: int, gone: bool = False) -> str:
    times = "" if left == 1 else f" ({left} of its findings)"
    where = " (the file is gone)" if gone else ""
    return (
        f"warning: {baseline}: entry no longer matches{times}: {entry.rule} in {entry.path}{where}: {entry.text!r}; "
        "shrink the baseline with --write-baseline"
    )
