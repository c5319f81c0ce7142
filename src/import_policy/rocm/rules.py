"""The ROCm-safety pass's built-in rules as `rules` and `explain` show them."""

from __future__ import annotations

from import_policy.config.model import Origin, Policy
from import_policy.kinds.builtin import BuiltinRule, shipped_doc
from import_policy.rocm.predicates import (
    EAGER_HEAVY_IMPORT,
    HEAVY_IMPORT_REACHABLE,
    IMPORT_TIME_JIT,
    TRIAL_IMPORT_PROBE,
)


def settings(policy: Policy) -> list[str]:
    """The `rocm_safety` settings in force, merged across `extends`, and where each came from:
    a map's names one line each, a list with the line of the file that set it."""
    rocm = policy.rocm_safety
    if rocm is None:
        return []

    def shown(items: list[str]) -> str:
        return ", ".join(items) if items else "(none)"

    def at(origin: Origin) -> str:
        return str(origin).replace("preset:", "preset ")

    def listed(key: str, items: list[str]) -> str:
        origins = list(dict.fromkeys(at(origin) for k, _, origin in rocm.origins if k == key))
        return shown(items) + (f"  [{origins[0]}]" if origins else "")

    reasons = dict(rocm.reasons)
    heavy = [
        f"    {p.text}  [{at(rocm.origin_of('heavy_modules', p.text))}]" + (f"  {reasons[p.text]}" if p.text in reasons else "")
        for p in rocm.heavy_modules
    ]
    probes = [
        f"    {probe} -> {alternative or '(no fix)'}  [{at(rocm.origin_of('probes', probe))}]"
        for probe, alternative in rocm.probes
    ]
    removed = [f"    {name} ({key})  [{at(origin)}]" for key, name, origin in rocm.removed]
    return [
        f"  declared in:   {at(rocm.origin)}",
        f"  heavy modules: {len(rocm.heavy_modules) or '(none)'}",
        *heavy,
        f"  probes:        {len(rocm.probes) or '(none)'}",
        *probes,
        *(["  removed:", *removed] if removed else []),
        f"  guards:        {listed('guards', list(rocm.guards))}",
        f"  rocm:          {listed('rocm', list(rocm.rocm))}",
        f"  files:         {listed('files', [g.text for g in rocm.files]) if rocm.files else '(everywhere)'}",
        f"  entry modules: {listed('entry_modules', list(rocm.entry_modules)) if rocm.entry_modules else '(the top-level packages)'}",
        # Shown where set: what names hold on ROCm, and the oldest Python (lazy imports).
        *(
            [f"  values:        {len(rocm.values)}", *(
                f"    {name}: {value!r}  [{at(rocm.origin_of('values', name))}]" for name, value in rocm.values
            )] if rocm.values else []
        ),
        *([f"  oldest Python: {rocm.python[0]}.{rocm.python[1]}"] if rocm.python != (3, 10) else []),
    ]


def _rule(rule_id: str, summary: str, fixable: str, opt_in: bool = False) -> BuiltinRule:
    return BuiltinRule(
        rule_id, "rocm-safety", summary, fixable, True, shipped_doc("import_policy.rocm", rule_id), settings,
        opt_in=opt_in,
    )


ROCM_RULES = (
    # Unsafe fixes whatever `probes` maps to: an inline probe (`try: import x`) becomes find_spec.
    _rule(TRIAL_IMPORT_PROBE, "A probe that imports a heavy module to see if it exists.", "unsafe"),
    _rule(
        EAGER_HEAVY_IMPORT, "Any heavy import or call that runs on ROCm at import time, reached or not (strict lint).",
        "no", opt_in=True,
    ),
    _rule(IMPORT_TIME_JIT, "A decorator from a heavy module, in a module an entry module reaches.", "no"),
    # A probe reached at import time is reported here, and carries the probe's fix.
    _rule(HEAVY_IMPORT_REACHABLE, "A heavy import or call a ROCm process runs by importing an entry module.", "unsafe"),
)
