"""A whole-tree run answered from the last one when nothing it read has changed.

The entry is keyed by the tool's version, the policy (a digest of its full, resolved form,
which cache.policy also records), the selection flags and the list of files the walk found; it records each file's stat data and the
hash of its bytes. A file whose stat data changed, or is racily clean (cache.racy: git's
rule), is confirmed by its bytes: same hash, still a hit. Only whole-tree checks use it: then the ROCm pass reads no file outside those
checked (a module it looks up that the walk did not find cannot appear without changing the
list), so the files checked are everything the result depends on. A new, removed or changed
file, another policy, selection or set of paths: a miss, and the run goes the usual way, the
per-file cache included.

Entries are JSON, like the per-file facts: a cache folder someone else wrote is never code.
Each is sealed with a MAC under the user's cache key (cache.seal), so an entry from a
checkout, another machine or another user is a miss; without a key the cache is off.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from import_policy import __version__
from import_policy.cache.key import cache_key
from import_policy.cache.seal import FOLDER, read_entry, seal, write_entry
from import_policy.cache.racy import now_ns, trusted
from import_policy.cache.stat import Stat, as_stat, stat_of
from import_policy.config.model import Policy
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import SourceFile
from import_policy.facts import EXTRACTION
from import_policy.edits.payload import decode, encode
from import_policy.project.layout import layout_digest

_FORMAT = 3
_PURPOSE = b"run"
KEEP = 8  # entries kept: a few selections or configs used in turn each stay warm
class Snapshot(dict[str, tuple[Stat, str]]):
    """Relative path -> (stat data, BLAKE2 hex digest of the bytes); `since`: when it began
    to be taken (the racy-clean rule's moment, cache.racy)."""

    def __init__(self, since: int) -> None:
        super().__init__()
        self.since = since


@dataclass
class Outcome:
    """What a whole-tree run found: its diagnostics, unreadable files and stale-allowlist lines."""

    diagnostics: list[Diagnostic]
    files: int
    unreadable: list[tuple[str, str]]
    stale: list[str]


def _stat(path: Path) -> Stat | None:
    return stat_of(path)


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def policy_digest(policy: Policy) -> str | None:
    """The policy in its full, resolved form, as a digest; None when part of it has no stable repr."""
    described = repr(policy)
    if " at 0x" in described:
        return None  # never risk a false hit
    return hashlib.blake2b(described.encode(), digest_size=20).hexdigest()


class RunCache:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / FOLDER / "runs"
        self.secret = cache_key(root)

    @staticmethod
    def key(
        policy: str, selection: object, files: Sequence[SourceFile], links: Sequence[tuple[str, str]] = (),
    ) -> str | None:
        """`policy`: `policy_digest` of the policy in force; `links`: each link inside the root
        the walk met, and where it leads (a module at a link's path is the file it leads to)."""
        described = repr(selection)
        if " at 0x" in described:
            return None  # something without a stable repr: never risk a false hit
        digest = hashlib.blake2b(digest_size=20)
        digest.update(f"{_FORMAT}\0{EXTRACTION}\0{__version__}\0{policy}\0".encode())
        digest.update(described.encode())
        for file in files:
            digest.update(f"\0{file.relative}\0{file.language}".encode())
        digest.update(f"\0links{list(links)}".encode())
        return digest.hexdigest()

    @staticmethod
    def snapshot(files: Sequence[SourceFile]) -> Snapshot | None:
        """Each file's stat data (taken before its bytes) and hash; None if one cannot be read."""
        taken = Snapshot(now_ns())
        for file in files:
            stat = _stat(file.path)
            try:
                data = file.path.read_bytes()
            except OSError:
                return None
            if stat is None:
                return None
            taken[file.relative] = (stat, _digest(data))
        return taken

    @staticmethod
    def _unchanged(files: Sequence[SourceFile], recorded: dict[str, Any], since: int, moved: dict[str, Stat]) -> bool:
        """Whether every file still matches the entry's record of it (stat data, BLAKE2 hex
        digest), read straight from its JSON: same stat data not racily clean (cache.racy),
        or else same bytes. `moved` gets the new stat data of each file its bytes confirmed."""
        if len(recorded) != len(files):
            return False
        for file in files:
            entry = recorded.get(file.relative)
            if entry is None:
                return False
            stat, digest = entry
            now = _stat(file.path)  # taken before the bytes: an edit after it moves it again
            if trusted(now, as_stat(stat), since):
                continue
            try:
                if now is None or _digest(file.path.read_bytes()) != digest:
                    return False
            except OSError:
                return False
            moved[file.relative] = now
        return True

    def get(self, key: str, files: Sequence[SourceFile]) -> Outcome | None:
        if self.secret is None:
            return None
        try:
            data = read_entry(self.folder / f"{key}.json", self.secret, _PURPOSE, key)
            if data is None:
                return None
            roots = [str(folder) for folder in data["roots"]]
            if layout_digest(self.root, roots) != data["layout"]:
                return None  # a folder came or went under a root: module names mean something else
            moved: dict[str, Stat] = {}
            confirmed = now_ns()  # before any byte is read again
            if not self._unchanged(files, data["files"], int(data["since"]), moved):
                return None
            outcome = Outcome(
                [_diagnostic(d) for d in data["diagnostics"]],
                int(data["files_checked"]),
                [(str(path), str(reason)) for path, reason in data["unreadable"]],
                [str(line) for line in data["stale"]],
            )
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError):
            return None
        if moved:
            self._refresh(key, data, moved, confirmed)
        return outcome

    def _refresh(self, key: str, data: dict[str, Any], moved: dict[str, Stat], since: int) -> None:
        """As `git status` refreshes the index: files whose bytes confirmed the entry are
        recorded with their new stat data, so a checkout or a copy that moved every ctime
        costs one run that reads the tree, not every run after it. Every file was confirmed after
        `since` (by its bytes, or by stat data older than the entry's own moment)."""
        for path, stat in moved.items():
            data["files"][path][0] = list(stat)
        data["since"] = since
        self._write(key, data)

    def put(
        self, key: str, files: Sequence[SourceFile], snapshot: Snapshot, outcome: Outcome, layout: tuple[list[str], str],
    ) -> None:
        """Best effort; skipped when a file's stat data moved while the run read it (its bytes
        may then not be the ones the result came from). `layout`: the policy's roots and their
        `layout_digest` taken before the run."""
        if self.secret is None:
            return
        if any(_stat(f.path) != snapshot[f.relative][0] for f in files):
            return
        try:
            # A payload without a codec (ValueError) is not stored: the next run checks afresh.
            entry = {
                "key": key,
                "since": snapshot.since,  # the racy-clean rule's moment (cache.racy)
                "roots": layout[0], "layout": layout[1],
                "files": {path: [list(stat), digest] for path, (stat, digest) in snapshot.items()},
                "diagnostics": [_encode(d) for d in outcome.diagnostics],
                "files_checked": outcome.files,
                "unreadable": [list(pair) for pair in outcome.unreadable],
                "stale": outcome.stale,
            }
        except ValueError:
            return
        self._write(key, entry)

    def _write(self, key: str, entry: dict[str, Any]) -> None:
        assert self.secret is not None
        try:
            text = json.dumps(entry, separators=(",", ":"))
            if self.folder.is_dir() and not self.folder.is_symlink() and not (self.root / FOLDER).is_symlink():
                _prune(self.folder, keep=KEEP - 1)  # never in a folder a link leads to
        except (OSError, ValueError, RecursionError):
            return
        write_entry(self.root / FOLDER, self.folder / f"{key}.json", seal(text, self.secret, _PURPOSE))


def _prune(folder: Path, keep: int) -> None:
    """Drop all but the `keep` newest entries."""
    entries = sorted(folder.glob("*.json"), key=lambda p: p.lstat().st_mtime_ns, reverse=True)
    for old in entries[keep:]:
        old.unlink(missing_ok=True)


def _encode(d: Diagnostic) -> dict[str, Any]:
    fix = encode(d.fix) if d.fix is not None else None
    return {
        "rule": d.rule, "severity": d.severity, "path": d.path, "span": [d.line, d.column, d.end_line, d.end_column],
        "message": d.message, "suppress": list(d.suppress_lines), "fixable": d.fixable,
        "chain": list(d.chain) if d.chain is not None else None, "fix": fix,
    }


def _diagnostic(data: dict[str, Any]) -> Diagnostic:
    raw = data["fix"]
    fix = decode(raw) if raw is not None else None
    severity = data["severity"]
    if severity not in ("error", "warning"):
        raise ValueError("an unknown severity")
    line, column, end_line, end_column = (int(n) for n in data["span"])
    return Diagnostic(
        rule=str(data["rule"]), severity=severity, path=str(data["path"]), line=line, column=column,
        end_line=end_line, end_column=end_column, message=str(data["message"]),
        suppress_lines=tuple(int(n) for n in data["suppress"]), fixable=bool(data["fixable"]),
        chain=None if data["chain"] is None else tuple(str(m) for m in data["chain"]), fix=fix,
    )
