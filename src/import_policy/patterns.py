"""Dotted-name patterns and path globs: the two pattern languages of a policy.

Both are checked and translated to anchored regular expressions at configuration time,
and each is compiled once, the first time it matches anything, so matching in the hot
loop is a single `fullmatch`, and a pre-commit batch that asks a pattern nothing does not
pay for compiling it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

_SEGMENT = re.compile(r"[A-Za-z0-9_*]+")


class PatternError(ValueError):
    """A pattern that cannot be compiled; the message says what is expected."""


@dataclass(frozen=True)
class DottedPattern:
    """`a.b`, `a.*_x`, `transformers.**.*Fast`: bans the name and everything under it."""

    text: str
    source: str = field(compare=False, repr=False)  # the anchored regular expression it stands for
    # The first segment when it is a plain word: a name with another first segment never matches.
    head: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        first = self.text.split(".", 1)[0]
        object.__setattr__(self, "head", None if "*" in first else first)

    @classmethod
    def compile(cls, text: str) -> DottedPattern:
        if not text:
            raise PatternError("an empty dotted name")
        parts: list[str] = []
        for segment in text.split("."):
            if segment == "**":
                if not parts or parts[-1] != "**":  # `**.**` is one `**`: zero or more segments, twice
                    parts.append("**")
            elif "**" in segment:
                raise PatternError(f"'**' must be a whole segment in {text!r}")
            elif not _SEGMENT.fullmatch(segment):
                raise PatternError(
                    f"{text!r} is not a dotted name: segments hold letters, digits, '_' and '*'"
                )
            else:
                parts.append("[^.]*".join(re.escape(p) for p in segment.split("*")))
        return cls(text, _join_segments(parts))

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.source)

    def matches(self, name: str) -> bool:
        return self.regex.fullmatch(name) is not None

    @functools.cached_property
    def _size(self) -> int | None:
        """How many segments the pattern matches, where it holds no `**` (it then needs no
        per-segment regexes: a run's start-up judges every pattern of the policy)."""
        segments = self.text.split(".")
        return None if "**" in segments else len(segments)

    @functools.cached_property
    def runs(self) -> tuple[tuple[re.Pattern[str], ...], ...]:
        """The pattern's segments as one-segment regexes, in the runs its `**` segments separate."""
        runs: list[list[re.Pattern[str]]] = [[]]
        for segment in self.text.split("."):
            if segment == "**":
                runs.append([])
            else:
                runs[-1].append(re.compile("[^.]*".join(re.escape(p) for p in segment.split("*"))))
        return tuple(tuple(run) for run in runs)

    def longest(self, name: str, segments: list[str], ends: list[int]) -> int:
        """How many leading segments the longest prefix of `name` this pattern matches has (0:
        none). `segments` is `name` split at its dots, `ends[i]` where its prefix of i + 1
        segments ends. Linear in the name's length: a prefix is never built, and a `**` is
        placed as a glob's `*` is (each run between them at its earliest place, the last at
        its latest), so no segment is tried more than once per run."""
        count = len(segments)
        size = self._size
        if size is not None:  # no `**`: the whole regex on the prefix of that many segments
            return size if size <= count and self.regex.fullmatch(name, 0, ends[size - 1]) else 0
        runs = self.runs

        def fits(run: tuple[re.Pattern[str], ...], at: int) -> bool:
            return at + len(run) <= count and all(r.fullmatch(segments[at + k]) for k, r in enumerate(run))

        if not fits(runs[0], 0):
            return 0
        at = len(runs[0])
        for run in runs[1:-1]:
            while not fits(run, at):
                if at + len(run) >= count:
                    return 0
                at += 1
            at += len(run)
        last = runs[-1]
        for start in range(count - len(last), at - 1, -1):
            if fits(last, start):
                return start + len(last)
        return 0

    @property
    def literal_head(self) -> str | None:
        """The first segment when it is a plain word, for cheap prefiltering."""
        return self.head


def _join_segments(parts: list[str]) -> str:
    # `**` stands for zero or more whole segments, so it carries its own dots.
    out = ""
    for index, part in enumerate(parts):
        if part == "**":
            if index > 0:
                out += r"(?:\.[^.]+)*"
            elif len(parts) > 1:
                out += r"(?:[^.]+\.)*"
            else:
                out += r"[^.]+(?:\.[^.]+)*"
        elif index == 0 or (index == 1 and parts[0] == "**"):
            out += part
        else:
            out += r"\." + part
    return out


# No file name can hold a longer module name (PATH_MAX, NAME_MAX on Linux and macOS).
_PATH_MAX = 4096
_NAME_MAX = 255


def heads(name: str) -> Iterator[str]:
    """`a.b.c` -> `a`, `a.b`, `a.b.c`: shortest first, made one at a time."""
    at = name.find(".")
    while at >= 0:
        yield name[:at]
        at = name.find(".", at + 1)
    yield name


def module_heads(name: str) -> Iterator[str]:
    """The prefixes of `name`, shortest first, that a file could stand for: one longer than a
    path or with a segment longer than a file name names no module, and neither does any
    longer prefix, so a hostile name of any length costs a bounded amount."""
    start = 0
    for head in heads(name):
        if len(head) > _PATH_MAX or len(head) - start > _NAME_MAX:
            return
        yield head
        start = len(head) + 1


def split_name(name: str) -> tuple[list[str], list[int]]:
    """`name`'s segments up to its first empty one (no module has one), and where each
    prefix ends, for `DottedPattern.longest`."""
    segments = name.split(".")
    if "" in segments:
        segments = segments[: segments.index("")] or [""]
    ends: list[int] = []
    at = -1
    for segment in segments:
        at += len(segment) + 1
        ends.append(at)
    return segments, ends


def longest_match(name: str, patterns: Iterable[DottedPattern]) -> tuple[int, DottedPattern | None]:
    """The length in segments of the longest prefix of `name` one of `patterns` matches,
    and the first pattern that matches it ((0, None): none does)."""
    segments, ends = split_name(name)
    best: tuple[int, DottedPattern | None] = (0, None)
    for pattern in patterns:
        size = pattern.longest(name, segments, ends)
        if size > best[0]:
            best = (size, pattern)
    return best


@dataclass(frozen=True)
class Verdict:
    forbidden: bool
    pattern: DottedPattern | None  # the pattern that decided, for stale-allowlist reporting


_ALLOWED = Verdict(False, None)


def judge(name: str, forbid: Iterable[DottedPattern], allow: Iterable[DottedPattern]) -> Verdict:
    """Most specific wins: the longest prefix of `name` that any pattern matches decides;
    at equal length an `except` beats a `forbid`."""
    # Only patterns that can match the name's first segment take part (most names: none).
    first = name.split(".", 1)[0]
    forbid = tuple(p for p in forbid if p.head is None or p.head == first)
    allow = tuple(p for p in allow if p.head is None or p.head == first)
    if not forbid and not allow:
        return _ALLOWED
    allowed, by = longest_match(name, allow)
    banned, pattern = longest_match(name, forbid)
    if banned > allowed:
        return Verdict(True, pattern)
    if by is not None:
        return Verdict(False, by)
    return _ALLOWED


@dataclass(frozen=True)
class PathGlob:
    """A path glob anchored at the project root; it also covers everything below a folder it matches."""

    text: str
    source: str = field(compare=False, repr=False)  # the anchored regular expression it stands for

    @classmethod
    def compile(cls, text: str) -> PathGlob:
        if not text:
            raise PatternError("an empty glob")
        if text.startswith("/") or re.match(r"[A-Za-z]:", text):
            raise PatternError(f"{text!r} is absolute; globs are relative to the project root")
        if "\\" in text:
            raise PatternError(f"{text!r} uses '\\'; write paths with '/'")
        body = text[:-1] if text.endswith("/") else text
        segments = body.split("/")
        if any(s in ("", ".", "..") for s in segments):
            raise PatternError(f"{text!r} has an empty, '.' or '..' segment")
        out = ""
        for index, segment in enumerate(segments):
            last = index == len(segments) - 1
            if segment == "**":
                out += ".*" if last else "(?:.*/)?"
                continue
            if "**" in segment:
                raise PatternError(f"'**' must be a whole path segment in {text!r}")
            out += _segment_regex(segment, text) + ("" if last else "/")
        # A glob that names a folder covers what is inside it: one regex for both, since
        # every rule asks this of every file.
        glob = cls(text, f"(?:{out})(?s:/.*)?")
        if "[" in text:
            try:  # a character class is the one part `re` may refuse (`[z-a]`): refused here, not mid-run
                glob.regex
            except re.error as error:
                raise PatternError(f"{text!r} is not a valid glob: {error.msg}") from None
        return glob

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.source)

    @functools.cached_property
    def literal(self) -> str | None:
        """The path itself, for a glob without a wildcard (most `allow_in` entries): compared, never compiled."""
        return None if any(char in self.text for char in "*?[") else self.text.rstrip("/")

    def matches(self, path: str) -> bool:
        """`path` is relative to the project root, with '/' separators."""
        literal = self.literal
        if literal is not None:
            return path == literal or path.startswith(literal + "/")
        return self.regex.fullmatch(path) is not None


def _segment_regex(segment: str, text: str) -> str:
    out = ""
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out += "[^/]*"
        elif char == "?":
            out += "[^/]"
        elif char == "[":
            end = segment.find("]", i + 2 if segment[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end < 0:
                raise PatternError(f"unclosed '[' in {text!r}")
            inner = segment[i + 1 : end]
            if inner.startswith("!"):
                inner = "^" + inner[1:]
            out += "[" + inner.replace("\\", "\\\\") + "]"
            i = end
        elif char == "]":
            raise PatternError(f"unmatched ']' in {text!r}")
        else:
            out += re.escape(char)
        i += 1
    return out


def any_match(globs: Iterable[PathGlob], path: str) -> PathGlob | None:
    for glob in globs:
        if glob.matches(path):
            return glob
    return None
