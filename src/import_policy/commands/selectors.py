"""What `--select`, `--extend-select` and `--ignore` name: rule ids, or prefixes of them.

ruff selects by prefix (`--select F4` is every `F4xx` rule); ids here are words joined by
`-`, so a prefix ends where a word does: `triton-` or `triton` stands for `triton-gateway`
and `triton-jit`, never `tri`. An exact id means that rule alone (`--select re` is not
`regex-not-re`), and an opt-in rule is only ever selected by its full id, as its docs say.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from import_policy.commands import UsageError


ALL = "ALL"


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`; did you mean `x`?` for the nearest choice, or nothing when none is near."""
    ordered = sorted(choices)
    # A prefix of an opt-in id (which no prefix selects) is nearest to that id.
    near = [choice for choice in ordered if word and choice.startswith(word)][:1]
    import difflib  # only a misspelling pays for it

    near = near or difflib.get_close_matches(word, ordered, n=1)
    return f"; did you mean `{near[0]}`?" if near else ""


def matching(selector: str, in_force: Iterable[str]) -> list[str]:
    """The ids a prefix stands for: those that continue it with `-` (or that it ends with `-`)."""
    stem = selector.rstrip("-")
    if not stem:
        return []
    return sorted(rule for rule in in_force if rule.startswith(stem + "-"))


def resolve(flag: str, selectors: Sequence[str] | None, in_force: Iterable[str], known: Iterable[str]) -> frozenset[str]:
    """The ids named by `flag`'s selectors. `in_force`: the rules a prefix can reach;
    `known`: every id a selector may name exactly (opt-in rules too)."""
    if not selectors:
        return frozenset()
    reachable, names = sorted(set(in_force)), set(known)
    found: set[str] = set()
    for selector in selectors:
        if selector == ALL:
            found.update(names)  # ruff's ALL: every rule, the opt-in ones too
            continue
        if selector in names:
            found.add(selector)
            continue
        expanded = matching(selector, reachable)
        if not expanded:
            raise UsageError(
                f"{flag}: unknown rule {selector!r}{did_you_mean(selector, names)} "
                f"(a selector is a rule id, or a prefix of ids that ends at a `-`: `no-` selects every `no-...` rule); "
                f"rules in force: {', '.join(reachable)}"
            )
        found.update(expanded)
    return frozenset(found)
