"""What a whole-tree run needs of the policy before the run cache can answer, without building it.

Building a policy parses YAML, validates it and imports every rule kind: most of a warm
run's start-up. So the first whole-tree run records, for its configuration, the little the
run cache needs: the project root, the `exclude` globs (the walk needs them) and the digest
of the policy the run was keyed by (cache.run). The next run reads the configuration's
bytes, finds this entry and asks the run cache with that digest; it builds the policy only
when either misses.

The entry is keyed by the tool's version, where the run stands, the top configuration (path
and bytes) and whether `src/` exists (it decides the default `roots`); it lists every other
file or built-in preset the policy came from (`extends`) with the digest of its bytes, and
each is read and compared on every use: a changed byte anywhere is a miss. Presets are
compared too, though they ship with the version: an editable install changes them in place.

JSON, sealed with the MAC of the other entries (cache.seal): a forged or foreign entry is a miss.

`Built` keeps, under the same key and the same check of every source, the built policy
itself (cache.records), for the runs the run cache cannot answer: a pre-commit batch then
reads one entry instead of parsing, validating and compiling every configuration file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from import_policy import __version__
from import_policy.cache.key import cache_key
from import_policy.cache.seal import FOLDER, read_entry, seal, write_entry

_FORMAT = 1
KEEP = 8
Sources = Sequence[tuple[str, str]]  # (`preset:NAME` or absolute path, digest of its bytes), top first


@dataclass(frozen=True)
class Known:
    """What a run-cache lookup needs of a policy that was built before from the same bytes."""

    root: Path
    exclude: tuple[str, ...]  # the globs' texts
    policy: str  # the digest the run cache keys the policy by
    ids: tuple[str, ...]  # the rule ids `--select`, `--extend-select` and `--ignore` may name
    # `environment.python`, the `follow:` names and whether it is `all`: the run cache watches
    # the followed distributions' files too. None: nothing followed.
    follow: tuple[str | None, tuple[str, ...], bool] | None = None


def entry_key(top: str, top_digest: str, cwd: Path, root: Path) -> str:
    digest = hashlib.blake2b(digest_size=20)
    parts = (str(_FORMAT), __version__, str(cwd), top, top_digest, str((root / "src").is_dir()))
    digest.update("\0".join(parts).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


class _Sourced:
    """Entries that hold while every source they list still has the bytes it had."""

    name = ""
    purpose = b""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / FOLDER / self.name
        self.secret = cache_key(root)

    def _get(self, key: str, digest_of: Callable[[str], str | None]) -> dict[str, Any] | None:
        """The entry when every source it lists still has the bytes it had (`digest_of` reads one).
        OSError, ValueError, KeyError, TypeError: a damaged entry (the callers' miss)."""
        if self.secret is None:
            return None
        data = read_entry(self.folder / f"{key}.json", self.secret, self.purpose, key)
        if data is None:
            return None
        for source, digest in data["sources"]:
            if not isinstance(source, str) or digest_of(source) != digest:
                return None
        return data

    def _put(self, key: str, sources: Sources, entry: dict[str, Any]) -> None:
        """Best effort: a cache that cannot be written only costs speed."""
        if self.secret is None or not sources:
            return
        try:
            text = json.dumps({"key": key, "sources": [list(pair) for pair in sources], **entry}, separators=(",", ":"))
            if self.folder.is_dir() and not self.folder.is_symlink() and not (self.root / FOLDER).is_symlink():
                # A few configurations used in turn each stay warm; an edited one's old entries go.
                entries = sorted(self.folder.glob("*.json"), key=lambda p: p.lstat().st_mtime_ns, reverse=True)
                for old in entries[KEEP - 1 :]:
                    old.unlink(missing_ok=True)
        except (OSError, ValueError, RecursionError):
            return
        write_entry(self.root / FOLDER, self.folder / f"{key}.json", seal(text, self.secret, self.purpose))


class PolicyIndex(_Sourced):
    name = "policies"
    purpose = b"policy"

    def get(self, key: str, digest_of: Callable[[str], str | None]) -> Known | None:
        try:
            data = self._get(key, digest_of)
            if data is None:
                return None
            exclude, ids = tuple(data["exclude"]), tuple(data["ids"])
            if not all(isinstance(text, str) for text in exclude + ids) or not isinstance(data["policy"], str):
                return None
            return Known(Path(str(data["root"])), exclude, data["policy"], ids, _follow(data.get("follow")))
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            return None

    def put(self, key: str, sources: Sources, known: Known) -> None:
        self._put(key, sources, {
            "root": str(known.root), "exclude": list(known.exclude), "policy": known.policy, "ids": list(known.ids),
            "follow": None if known.follow is None else [known.follow[0], list(known.follow[1]), known.follow[2]],
        })


def _follow(data: object) -> tuple[str | None, tuple[str, ...], bool] | None:
    """What the entry recorded of `follow:`; TypeError for a damaged one (a miss)."""
    if data is None:
        return None
    if not isinstance(data, list) or len(data) != 3:
        raise TypeError("follow")
    python, names, every = data[0], data[1], data[2]
    if not (python is None or isinstance(python, str)) or not isinstance(every, bool) or not isinstance(names, list):
        raise TypeError("follow")
    if not all(isinstance(name, str) for name in names):
        raise TypeError("follow")
    return python, tuple(str(name) for name in names), every


class Built(_Sourced):
    """Built policies (cache.records' JSON of a `Loaded`), keyed and checked as the index is."""

    name = "built"
    purpose = b"built-policy"

    def get(self, key: str, digest_of: Callable[[str], str | None]) -> object | None:
        try:
            data = self._get(key, digest_of)
            return None if data is None else data["built"]
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            return None

    def put(self, key: str, sources: Sources, built: object) -> None:
        self._put(key, sources, {"built": built})
