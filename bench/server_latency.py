"""Time from a `textDocument/didOpen` or `didChange` to its `publishDiagnostics`, over
`import-policy server` on vLLM 0.33.0 (`extends: [vllm]`): modules on the ROCm worker's chain
(`vllm.v1.worker.gpu_worker` reaches `vllm.config`, which imports every `vllm.config.*`
module) and off every entry's chain (`vllm.v1.worker.gpu_model_runner` and
`vllm.v1.sample.sampler` are imported lazily), a large and a typical one of each.

    python bench/server_latency.py                          # a copy of /work/trees/vllm, `check` run in it first
    python bench/server_latency.py --tree DIR               # DIR: a vLLM tree a `check` ran in (warm)
    python bench/server_latency.py --tree DIR --edits 10 --opens 5

Three figures, each a median, against its target:
- opened-first: a server started afresh, `initialize`d, then one file opened: the wait for
  its first diagnostics (the configuration loaded, the graphs loaded from what `check`
  stored, the file checked); <= 1 s. Taken `--opens` times, a new server each time, on
  `vllm/config/cache.py`.
- on-chain edit: a new module-level import (`import vllm.envs as _bench_n`) or call (of a
  project function the module imports: `init_logger("_bench_n")`) in a module on the chain;
  <= 300 ms for ordinary modules.
- off-chain edit: the same edits in a module off the chain; <= 100 ms.

Each file's rows also give the typing edits (the server keeps its graph in memory between edits):
- `comment`: a character typed in a comment at the end of the module (most keystrokes: the
  record the ROCm pass keeps of the file stays the same, so nothing is derived again);
- `newline`: one more line inserted at the top at each edit (the same facts, moved: only the
  module's links, its sites and the reaches are derived again);
- `binding`: a new module-level name (`_bench_3 = 3`: a new fact no other file reads);
- `import`, `call`: the edits of the on-chain and off-chain figures.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from lsp_client import Client, uri  # noqa: E402

FIRST = "vllm/config/cache.py"
ON_CHAIN = ("vllm/config/cache.py", "vllm/config/model.py")  # typical, then large
OFF_CHAIN = ("vllm/v1/sample/sampler.py", "vllm/v1/worker/gpu_model_runner.py")
EDITS: dict[str, Callable[[str, int], str]] = {
    "comment": lambda text, n: f"{text}\n# bench {'x' * n}\n",
    "newline": lambda text, n: "\n" * n + text,
    "binding": lambda text, n: f"{text}\n_bench_{n} = {n}\n",
    "import": lambda text, n: f"{text}\nimport vllm.envs as _bench_{n}\n",
    # A call of a project function the module imports already (`vllm.logger.init_logger`,
    # `vllm.v1.sample.ops.bad_words.apply_bad_words`): a new call, no new binding.
    "call": lambda text, n: f"{text}\n{'init_logger' if 'import init_logger' in text else 'apply_bad_words'}(\"_bench_{n}\")\n",
}
WAITED = ("import", "call")  # the edits the on-chain and off-chain figures are of


def first_open(root: Path, server: Sequence[str], relative: str) -> float:
    """A server started afresh: from `didOpen` to the file's first diagnostics."""
    client = Client(root, server)
    try:
        client.initialize(root)
        path = root / relative
        text = path.read_text(encoding="utf-8")
        mark = len(client.notifications)
        started = time.perf_counter()
        client.open(path, text, version=1)
        client.diagnostics(path, since=mark, version=1, timeout=1800)
        taken = time.perf_counter() - started
        client.shutdown()
        return taken
    finally:
        client.kill()


def edits(client: Client, root: Path, relative: str, count: int) -> dict[str, list[float]]:
    path = root / relative
    text = path.read_text(encoding="utf-8")
    mark = len(client.notifications)
    client.open(path, text, version=1)
    client.diagnostics(path, since=mark, version=1, timeout=1800)
    version = 1
    times: dict[str, list[float]] = {}
    for kind, edit in EDITS.items():
        for round_ in range(1, count + 1):
            version += 1
            mark = len(client.notifications)
            started = time.perf_counter()
            client.change(path, edit(text, round_), version)
            client.diagnostics(path, since=mark, version=version, timeout=600)
            times.setdefault(kind, []).append(time.perf_counter() - started)
    # Back to the disk's text before the next file: each file's edits start from the same graph.
    version += 1
    mark = len(client.notifications)
    client.change(path, text, version)
    client.diagnostics(path, since=mark, version=version, timeout=600)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri(path)}})
    return times


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _verdict(value: float, target: float) -> str:
    return "met" if value <= target else "missed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, help="a vLLM 0.33.0 tree with its import-policy.yaml, used in place")
    parser.add_argument("--reference", type=Path, default=Path("/work/trees/vllm"), help="copied when --tree is not given")
    parser.add_argument("--edits", type=int, default=6, help="edits of each kind per file")
    parser.add_argument("--opens", type=int, default=5, help="servers started afresh for the opened-first figure")
    parser.add_argument("--server", nargs="+", default=[sys.executable, "-m", "import_policy", "server"])
    args = parser.parse_args(argv)
    scratch = None
    root = args.tree
    if root is None:
        scratch = Path(tempfile.mkdtemp(prefix="server-latency-"))
        root = scratch / "vllm"
        shutil.copytree(args.reference, root, symlinks=True)
        # Warm, as the figures are: a `check` fills the facts cache and stores the graphs.
        subprocess.run([*args.server[:-1], "check", "--quiet"], cwd=root, stdout=subprocess.DEVNULL, check=False)
    root = root.resolve()
    try:
        opens = [first_open(root, args.server, FIRST) for _ in range(args.opens)]
        opened = statistics.median(opens)
        print(f"opened-first: {FIRST}, median {_ms(opened)} of {len(opens)} servers "
              f"(min {_ms(min(opens))}, max {_ms(max(opens))}); target 1000 ms: {_verdict(opened, 1.0)}")
        client = Client(root, args.server)
        waited: dict[str, list[float]] = {}
        try:
            client.initialize(root)
            files = [("on", relative, 0.300) for relative in ON_CHAIN] + [("off", relative, 0.100) for relative in OFF_CHAIN]
            for label, relative, target in files:
                times = edits(client, root, relative, args.edits)
                lines = (root / relative).read_text(encoding="utf-8").count("\n")
                print(f"{label} the chain: {relative} ({lines} lines); target {_ms(target)}")
                for kind, taken in times.items():
                    median = statistics.median(taken)
                    print(f"    {kind:8} median {median * 1000:5.0f} ms  min {min(taken) * 1000:5.0f}  "
                          f"max {max(taken) * 1000:5.0f}  ({len(taken)} edits; {_verdict(median, target)})")
                    if kind in WAITED and relative in (ON_CHAIN[0], OFF_CHAIN[0]):
                        waited.setdefault(label, []).extend(taken)
            client.shutdown()
        finally:
            client.kill()
        for label, target in (("on", 0.300), ("off", 0.100)):
            median = statistics.median(waited[label])
            typical = ON_CHAIN[0] if label == "on" else OFF_CHAIN[0]
            print(f"{label}-chain edit (a new import or call in {typical}): median {_ms(median)} of "
                  f"{len(waited[label])}; target {_ms(target)}: {_verdict(median, target)}")
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
