"""`--diff`: the unified diff of what `--fix` would write, as `git apply` and `patch -p1` read it.

Bytes, not text: the diff holds the file's own bytes, whatever its encoding, so the patch
applies to it exactly. Lines are split on `\\n` alone, as the patch tools split them: a
CR-only file is one line to them (its hunk replaces it whole), and a form feed, U+2028 or
U+0085 is just a character inside a line. Headers are git's, `--- a/PATH` / `+++ b/PATH`
with the path relative to the current folder, quoted as git quotes it when it needs to be
(and, as git does, followed by a tab when it holds a space).

No sequence matching: the fixer knows where each edit is (`Edit`: a byte range of the old
file and the bytes that replace it), so each hunk is built from its edits and three lines of
context around them, at a cost linear in the lines changed and their context, never in the
whole file (difflib over a file of many similar lines is quadratic). Edits closer than twice
the context share a hunk, as diff's do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from import_policy.quoting import quote_path

Edit = tuple[int, int, bytes]  # old[start:end] is replaced by the bytes
CONTEXT = 3
_NO_NEWLINE = b"\n\\ No newline at end of file\n"


def unified_diff(shown: str, old: bytes, edits: Sequence[Edit]) -> bytes:
    """The diff applying `edits` (sorted, disjoint) to `old`, for the file at `shown`."""
    changes = change_regions(old, edits)
    if not changes:
        return b""
    out = [b"--- " + _header(f"a/{shown}") + b"\n", b"+++ " + _header(f"b/{shown}") + b"\n"]
    for hunk in _hunks(old, changes):
        out.append(hunk)
    return b"".join(out)


def edits_between(old: bytes, new: bytes, hints: Sequence[tuple[int, int]] | None) -> list[Edit]:
    """The edits turning `old` into `new`, where only the byte ranges `hints` of `old` may
    have changed (each clean stretch between them is found again in `new`, in order). Where
    the hints do not hold (or there are none), one edit: what lies between the common
    prefix and the common suffix."""
    if hints:
        found = _from_hints(old, new, hints)
        if found is not None:
            return found
    return [_one_edit(old, new)] if old != new else []


def _from_hints(old: bytes, new: bytes, hints: Sequence[tuple[int, int]]) -> list[Edit] | None:
    ranges: list[list[int]] = []
    for start, end in sorted(hints):
        if ranges and start <= ranges[-1][1]:
            ranges[-1][1] = max(ranges[-1][1], end)
        else:
            ranges.append([start, end])
    edits: list[Edit] = []
    at_old = at_new = 0
    for index, (start, end) in enumerate(ranges):
        if not new.startswith(old[at_old:start], at_new):
            return None
        at_new += start - at_old
        following = ranges[index + 1][0] if index + 1 < len(ranges) else len(old)
        clean = old[end:following]
        if index + 1 == len(ranges):
            resume = len(new) - len(clean)
            if resume < at_new or not new.endswith(clean):
                return None
        else:
            # The clean stretch starts a line (hints are whole lines): so must its match.
            resume = new.find(clean, at_new) if clean else at_new
            while resume > at_new and new[resume - 1:resume] not in (b"\n", b"\r"):
                resume = new.find(clean, resume + 1)
            if resume < 0:
                return None
        edits.append((start, end, new[at_new:resume]))
        at_old, at_new = end, resume
    return edits


def _one_edit(old: bytes, new: bytes) -> Edit:
    limit = min(len(old), len(new))
    prefix = _common(old, new, limit, forward=True)
    suffix = _common(old, new, limit - prefix, forward=False)
    return (prefix, len(old) - suffix, new[prefix:len(new) - suffix])


def _common(old: bytes, new: bytes, limit: int, forward: bool) -> int:
    """How many bytes the two share at their start (or end), at most `limit`: compared a block
    at a time, so the cost is that of the bytes they share."""
    size, block = 0, 1 << 16
    while size < limit:
        step = min(block, limit - size)
        if forward:
            same = old[size:size + step] == new[size:size + step]
        else:
            same = old[len(old) - size - step:len(old) - size] == new[len(new) - size - step:len(new) - size]
        if not same:
            if step == 1:
                return size
            block = max(1, step // 2)
            continue
        size += step
    return size


# A change in whole lines: (start, end) of `old` at line boundaries, and the lines that replace them.
Change = tuple[int, int, bytes]


def change_regions(old: bytes, edits: Sequence[Edit]) -> list[Change]:
    """The change regions of `edits` (sorted, disjoint) on `old`, in order: whole lines (split
    on `\\n`) and the lines that replace them, each without the unchanged lines at its ends,
    those that share a line merged, none that changes nothing. `--diff` makes a hunk of the
    nearby ones; SARIF's and JSON's fixes give each as one replacement."""
    return [c for c in _line_changes(old, edits) if old[c[0]:c[1]] != c[2]]


def _line_changes(old: bytes, edits: Sequence[Edit]) -> Iterator[Change]:
    """The edits widened to whole lines (split on `\\n`), those that share a line merged. A
    change whose new text does not end a line takes in the lines after it until it does, so
    every line a hunk shows is whole (only the file's last line may lack its `\\n`)."""
    pending = sorted(edits, key=lambda edit: edit[0])
    index = 0
    while index < len(pending):
        edit_start, edit_end, text = pending[index]
        start = old.rfind(b"\n", 0, edit_start) + 1
        end = _line_end(old, edit_end)
        pieces = [old[start:edit_start], text]
        edited = edit_end
        index += 1
        while True:
            # The next edit joins when its line is one this change already holds (an edit at
            # the end of an unended last line is on that line, though it starts at `end`).
            if index < len(pending) and old.rfind(b"\n", 0, pending[index][0]) + 1 < end:
                next_start, next_end, next_text = pending[index]
                pieces += [old[edited:next_start], next_text]
                edited = next_end
                end = max(end, _line_end(old, next_end))
                index += 1
                continue
            new = b"".join(pieces) + old[edited:end]
            if end < len(old) and new and not new.endswith(b"\n"):
                end = _line_end(old, end + 1)  # the next line joins the change
                continue
            if index < len(pending) and pending[index][0] == end and new and not new.endswith(b"\n"):
                # An insertion at the end of the file, after a change that left the last line
                # unended, is on that line: it joins (it may end the line again, a no-op).
                next_start, next_end, next_text = pending[index]
                pieces += [old[edited:next_start], next_text]
                edited = next_end
                index += 1
                continue
            break
        yield _trimmed(old, start, end, new)


def _trimmed(old: bytes, start: int, end: int, new: bytes) -> Change:
    """The change without the whole lines it leaves as they were at its start and end (a
    statement rewritten whole keeps its unchanged lines as context)."""
    before, after = _lines(old[start:end]), _lines(new)
    head = 0
    while head < min(len(before), len(after)) and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(len(before), len(after)) - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    cut_start = sum(map(len, before[:head]))
    cut_end = sum(map(len, before[len(before) - tail:]))
    return start + cut_start, end - cut_end, b"".join(after[head:len(after) - tail])


def _line_end(old: bytes, end: int) -> int:
    """The end of the line holding the byte before `end` (past its `\\n`), or `end` at a line start."""
    if end == 0 or old[end - 1:end] == b"\n":
        return end
    found = old.find(b"\n", end)
    return len(old) if found < 0 else found + 1


def _hunks(old: bytes, changes: list[Change]) -> Iterator[bytes]:
    """Each hunk: its changes, with CONTEXT lines around; changes closer than 2 * CONTEXT
    unchanged lines share one. Line numbers are counted between changes, once."""
    line = 1  # the old line number at `counted`
    counted = 0
    delta = 0  # new line number - old line number, before the hunk
    group: list[tuple[int, Change]] = []  # (old line number of the change's start, change)
    for change in changes:
        line += old.count(b"\n", counted, change[0])
        counted = change[0]
        if group:
            last_line, last = group[-1]
            gap = line - (last_line + _count(old[last[0]:last[1]]))
            if gap > 2 * CONTEXT:
                yield _hunk(old, group, delta)
                delta += sum(_count(c[2]) - _count(old[c[0]:c[1]]) for _, c in group)
                group = []
        group.append((line, change))
    if group:
        yield _hunk(old, group, delta)


def _hunk(old: bytes, group: list[tuple[int, Change]], delta: int) -> bytes:
    first_line, first = group[0]
    before = _back(old, first[0], CONTEXT)
    context_before = _lines(old[before:first[0]])
    start_line = first_line - len(context_before)
    body: list[bytes] = [b" " + text for text in context_before]
    old_count = new_count = len(context_before)
    for index, (_, change) in enumerate(group):
        removed, added = _lines(old[change[0]:change[1]]), _lines(change[2])
        body += [b"-" + text for text in removed] + [b"+" + text for text in added]
        old_count += len(removed)
        new_count += len(added)
        upto = group[index + 1][1][0] if index + 1 < len(group) else _forward(old, change[1], CONTEXT)
        between = _lines(old[change[1]:upto])
        body += [b" " + text for text in between]
        old_count += len(between)
        new_count += len(between)
    head = f"@@ -{_range(start_line, old_count)} +{_range(start_line + delta, new_count)} @@\n".encode()
    return head + b"".join(text if text.endswith(b"\n") else text + _NO_NEWLINE for text in body)


def _range(start: int, count: int) -> str:
    # As diff writes it: an empty range names the line before it; a count of 1 is left out.
    if count == 0:
        return f"{start - 1},0"
    return str(start) if count == 1 else f"{start},{count}"


def _lines(data: bytes) -> list[bytes]:
    if not data:
        return []
    parts = data.split(b"\n")
    out = [part + b"\n" for part in parts[:-1]]
    return out + [parts[-1]] if parts[-1] else out


def _count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _back(old: bytes, at: int, lines: int) -> int:
    """The start of the line `lines` lines before the one starting at `at`."""
    for _ in range(lines):
        if at == 0:
            break
        at = old.rfind(b"\n", 0, at - 1) + 1
    return at


def _forward(old: bytes, at: int, lines: int) -> int:
    """The end of the `lines` lines starting at `at`."""
    for _ in range(lines):
        if at >= len(old):
            break
        found = old.find(b"\n", at)
        at = len(old) if found < 0 else found + 1
    return at


def _header(name: str) -> bytes:
    # As git writes it: a name with a space ends in a tab, where `patch` ends a file name.
    quoted = quote_path(name)
    return (quoted + ("\t" if " " in quoted else "")).encode("utf-8", "surrogateescape")
