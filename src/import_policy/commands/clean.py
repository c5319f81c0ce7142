"""`import-policy clean`: remove the caches under the current folder (ruff's `clean`).

Every `.import_policy_cache/` folder found walking down from the current folder is removed;
links are never followed (a link named so is left alone), and a folder that cannot be
removed is named on stderr (exit 2). The cache key outside the project is kept: it is not a
cache, and a new one would only cost the next run its warm answers.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from import_policy.cache.seal import FOLDER
from import_policy.commands import EXIT_ERROR, EXIT_OK
from import_policy.discovery.files import SKIPPED_FOLDERS
from import_policy.quoting import quote_path


def caches_under(top: Path) -> list[str]:
    """The cache folders below `top` (itself included), real folders only, sorted."""
    found: list[str] = []
    for folder, names, _ in os.walk(top):  # os.walk follows no link to a folder
        if FOLDER in names:
            path = os.path.join(folder, FOLDER)
            if not os.path.islink(path):
                found.append(path)
            names.remove(FOLDER)
        # Folders no run keeps a cache in (VCS metadata, virtual environments) are not walked.
        names[:] = [name for name in names if name not in SKIPPED_FOLDERS]
    return sorted(found)


def clean(cwd: Path) -> int:
    failed = False
    for path in caches_under(cwd):
        shown = quote_path(Path(os.path.relpath(path, cwd)).as_posix())
        try:
            shutil.rmtree(path)
        except OSError as error:
            failed = True
            print(f"import-policy: cannot remove {shown}: {error.strerror or error}", file=sys.stderr)
            continue
        print(f"Removed {shown}")
    return EXIT_ERROR if failed else EXIT_OK
