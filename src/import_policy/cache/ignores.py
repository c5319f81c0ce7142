"""What each `.gitignore`'s rules said of the single paths lookups asked about, kept between runs.

A lookup (an entry module of the configuration, a module a chain of the ROCm pass reaches)
asks about a few paths; compiling a `.gitignore` of a few hundred rules for them costs a
pre-commit batch more than all its other lookups. A verdict is a function of the rules'
text and the path alone, so it is keyed by exactly those, the BLAKE2 digest of the
`.gitignore`'s bytes and the path as its rules see it: no stat data, nothing to go stale.
Whether git tracks the file is asked afresh every time (discovery.tracked).

One entry per project, JSON sealed with a MAC under the user's cache key like every other
(cache.seal); written once a run is done (or the process ends), if it learned a verdict. Best effort:
an entry that does not verify, or is too large, is a miss.
"""

from __future__ import annotations

import atexit
import hashlib
import json
from pathlib import Path

from import_policy import __version__
from import_policy.cache.key import cache_key
from import_policy.cache.seal import FOLDER, read_entry, seal, write_entry

_FORMAT = 2
_PURPOSE = b"ignores"
LIMIT = 20_000  # verdicts kept: past it, only the last run's are
_KEY = f"{_FORMAT}/{__version__}"  # an entry another version wrote is a miss
Verdict = bool | None  # what the rules said: ignored, re-included by a negation, or nothing


def rules_digest(text: bytes) -> str:
    return hashlib.blake2b(text, digest_size=16).hexdigest()


class Verdicts:
    """The verdicts known for one project root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.file = root / FOLDER / "ignores" / "verdicts.json"
        self.known: dict[str, dict[str, Verdict]] = {}
        self.fresh: dict[str, dict[str, Verdict]] = {}  # learned by this process
        self.secret = cache_key(root)
        if self.secret is None:
            return
        try:
            data = read_entry(self.file, self.secret, _PURPOSE, _KEY)
            rules = data["rules"] if data is not None else None
            if isinstance(rules, dict):
                self.known = {
                    digest: {path: said for path, said in paths.items() if said in (True, False, None)}
                    for digest, paths in rules.items()
                    if isinstance(digest, str) and isinstance(paths, dict)
                }
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            self.known = {}

    def get(self, digest: str, path: str) -> tuple[bool, Verdict]:
        """(whether it is known, the verdict)."""
        paths = self.known.get(digest)
        if paths is None or path not in paths:
            return False, None
        return True, paths[path]

    def put(self, digest: str, path: str, said: Verdict) -> None:
        self.known.setdefault(digest, {})[path] = said
        self.fresh.setdefault(digest, {})[path] = said

    def save(self) -> None:
        if not self.fresh or self.secret is None:
            return
        # Never grows without bound: past the limit only this process's verdicts are kept.
        kept = self.known if sum(len(paths) for paths in self.known.values()) <= LIMIT else self.fresh
        text = json.dumps({"key": _KEY, "rules": kept}, separators=(",", ":"))
        write_entry(self.root / FOLDER, self.file, seal(text, self.secret, _PURPOSE))
        self.fresh = {}


_open: dict[Path, Verdicts] = {}


def verdicts(root: Path) -> Verdicts:
    """This process's verdicts for `root`, read once and saved when the process ends."""
    found = _open.get(root)
    if found is None:
        found = _open[root] = Verdicts(root)
        if len(_open) == 1:
            atexit.register(save_all)  # for a command that does not say when its lookups are done
    return found


def save_all() -> None:
    """Write what this process learned (`check` calls it once its run is done)."""
    for found in _open.values():
        found.save()
