"""Time from a `textDocument/didChange` to its `publishDiagnostics`, over `import-policy server`
on vLLM 0.33.0: one module on the ROCm worker's chain (`vllm.v1.worker.gpu_worker` reaches
`vllm.config.model`) and one off every entry's chain (`vllm.v1.worker.gpu_model_runner` is
imported lazily). Targets: under 300 ms on the chain, under 100 ms off it (median).

    python bench/server_latency.py                    # a copy of /work/ref/vllm, 10 edits each
    python bench/server_latency.py --tree DIR --edits 20

Each edit appends or changes one assignment at the end of the module, as typing does; the
server keeps its graph in memory between edits. The first open of each file (which builds
the graph, from the facts cache when a `check` ran before) is timed apart.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from lsp_client import Client  # noqa: E402

ON_CHAIN = "vllm/config/model.py"
OFF_CHAIN = "vllm/v1/worker/gpu_model_runner.py"


def measure(client: Client, root: Path, relative: str, edits: int) -> tuple[float, list[float], int]:
    path = root / relative
    text = path.read_text(encoding="utf-8")
    mark = len(client.notifications)
    started = time.perf_counter()
    client.open(path, text, version=1)
    found = client.diagnostics(path, since=mark, version=1, timeout=1800)
    first = time.perf_counter() - started
    times = []
    for round_ in range(edits):
        version = round_ + 2
        edited = f"{text}\n_import_policy_bench = {round_}\n"
        mark = len(client.notifications)
        started = time.perf_counter()
        client.change(path, edited, version)
        client.diagnostics(path, since=mark, version=version, timeout=600)
        times.append(time.perf_counter() - started)
    client.notify("textDocument/didClose", {"textDocument": {"uri": f"file://{path.resolve()}"}})
    return first, times, len(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, help="a vLLM 0.33.0 tree with its import-policy.yaml, used in place")
    parser.add_argument("--reference", type=Path, default=Path("/work/ref/vllm"), help="copied when --tree is not given")
    parser.add_argument("--edits", type=int, default=10)
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
        for label, relative, target in (("on the chain", ON_CHAIN, 0.300), ("off the chain", OFF_CHAIN, 0.100)):
            first, times, count = measure(client, root, relative, args.edits)
            median = statistics.median(times)
            print(
                f"{label:14} {relative}: first open {first * 1000:.0f} ms ({count} findings); "
                f"didChange -> publishDiagnostics over {len(times)} edits: median {median * 1000:.0f} ms, "
                f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
                f"(target {target * 1000:.0f} ms: {'met' if median < target else 'missed'})"
            )
        client.shutdown()
    finally:
        client.kill()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
