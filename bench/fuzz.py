"""The longer fuzz run: the suite's hypothesis fuzzers with more examples.

    python bench/fuzz.py [--examples 600]

Runs tests/facts/test_imports_generated.py (generated imports vs the reference model of
contract section 3) and tests/pipeline/test_mutations.py (mutated real files) with
FUZZ_EXAMPLES set, and prints each one's time and result.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=600)
    args = parser.parse_args()
    failed = 0
    for test in ("tests/facts/test_imports_generated.py", "tests/pipeline/test_mutations.py"):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
            cwd=ROOT, env={**os.environ, "FUZZ_EXAMPLES": str(args.examples)}, capture_output=True, text=True,
        )
        last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
        print(f"{test}: {args.examples} examples, {time.perf_counter() - start:.1f} s: {last}")
        failed |= done.returncode
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
