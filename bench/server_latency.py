"""Time from a `textDocument/didChange` to its `publishDiagnostics`, over `import-policy server`
on vLLM 0.33.0: modules on the ROCm worker's chain (`vllm.v1.worker.gpu_worker` reaches
`vllm.config`, which imports every `vllm.config.*` module) and off every entry's chain
(`vllm.v1.worker.gpu_model_runner` and `vllm.v1.sample.sampler` are imported lazily), a large
and a typical one of each. Targets: under 300 ms on the chain, under 100 ms off it.

    python bench/server_latency.py                    # a copy of /work/ref/vllm, 6 edits of each kind
    python bench/server_latency.py --tree DIR --edits 10

Three kinds of edit, as typing makes them (the server keeps its graph in memory between edits):
- `comment`: a character typed in a comment at the end of the module (most keystrokes: the
  record the ROCm pass keeps of the file stays the same, so nothing is derived again);
- `newline`: one more line inserted at the top at each edit (the same facts, moved: only the
  module's links, its sites and the reaches are derived again);
- `binding`: a new module-level name (`_bench_3 = 3`: a new fact, so the graph's inputs log is
  cut at the file and what came after it derived again: the worst case).
The first open of each file (which builds the graph, from the facts cache when a `check` ran
before) is timed apart.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from lsp_client import Client, uri  # noqa: E402

ON_CHAIN = ("vllm/config/model.py", "vllm/config/cache.py")
OFF_CHAIN = ("vllm/v1/worker/gpu_model_runner.py", "vllm/v1/sample/sampler.py")
EDITS: dict[str, Callable[[str, int], str]] = {
    "comment": lambda text, n: f"{text}\n# bench {'x' * n}\n",
    "newline": lambda text, n: "\n" * n + text,
    "binding": lambda text, n: f"{text}\n_bench_{n} = {n}\n",
}


def measure(client: Client, root: Path, relative: str, edits: int) -> tuple[float, dict[str, list[float]]]:
    path = root / relative
    text = path.read_text(encoding="utf-8")
    mark = len(client.notifications)
    started = time.perf_counter()
    client.open(path, text, version=1)
    client.diagnostics(path, since=mark, version=1, timeout=1800)
    first = time.perf_counter() - started
    version = 1
    times: dict[str, list[float]] = {}
    for kind, edit in EDITS.items():
        for round_ in range(1, edits + 1):
            version += 1
            mark = len(client.notifications)
            started = time.perf_counter()
            client.change(path, edit(text, round_), version)
            client.diagnostics(path, since=mark, version=version, timeout=600)
            times.setdefault(kind, []).append(time.perf_counter() - started)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri(path)}})
    return first, times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, help="a vLLM 0.33.0 tree with its import-policy.yaml, used in place")
    parser.add_argument("--reference", type=Path, default=Path("/work/ref/vllm"), help="copied when --tree is not given")
    parser.add_argument("--edits", type=int, default=6, help="edits of each kind per file")
    parser.add_argument("--server", nargs="+", default=[sys.executable, "-m", "import_policy", "server"])
    args = parser.parse_args(argv)
    scratch = None
    root = args.tree
    if root is None:
        scratch = Path(tempfile.mkdtemp(prefix="server-latency-"))
        root = scratch / "vllm"
        shutil.copytree(args.reference, root, symlinks=True)
    root = root.resolve()
    client = Client(root, args.server)
    try:
        client.initialize(root)
        files = [("on", relative, 0.300) for relative in ON_CHAIN] + [("off", relative, 0.100) for relative in OFF_CHAIN]
        for label, relative, target in files:
            first, times = measure(client, root, relative, args.edits)
            lines = (root / relative).read_text(encoding="utf-8").count("\n")
            print(f"{label} the chain: {relative} ({lines} lines), first open {first * 1000:.0f} ms; target {target * 1000:.0f} ms")
            for kind, taken in times.items():
                median = statistics.median(taken)
                print(
                    f"    {kind:8} median {median * 1000:5.0f} ms  min {min(taken) * 1000:5.0f}  max {max(taken) * 1000:5.0f}"
                    f"  ({len(taken)} edits; {'met' if median < target else 'missed'})"
                )
        client.shutdown()
    finally:
        client.kill()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
