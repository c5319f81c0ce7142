"""One stderr line for a file that takes long to read, so a slow run can be explained."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from import_policy.quoting import quote_path

# A file over this many seconds is named; the run goes on as usual.
SECONDS = 1.0


def tell(root: Path, relative: str, seconds: float) -> None:
    shown = Path(os.path.relpath(root / relative)).as_posix()
    # One write of the whole line: workers of a pool share the descriptor, and a line
    # written in two pieces could be split by another worker's.
    sys.stderr.write(f"import-policy: slow file: {quote_path(shown)} took {seconds:.1f} s\n")
    sys.stderr.flush()
