from __future__ import annotations

import os
import subprocess
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from import_policy.cli import main

# Hypothesis's own clocks (a deadline per example, the too_slow health check on generating
# them) time the machine, not the code: on a shared machine they fail for nothing. A test
# that lists its own suppressed health checks must list too_slow as well.
settings.register_profile("untimed", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("untimed")

SNAPSHOTS = Path(__file__).parent / "snapshots"
# A moment well before any cache entry a test writes: a tree dated then has old mtimes; with
# `later` (its ctimes cannot be dated) its stat data is trusted, so a cache that missed a
# change would fail the test (a racily clean entry is always compared by its bytes).
PAST = time.time_ns() - 3600 * 10**9


def age(root: Path, when: int = PAST, skip: tuple[str, ...] = (".git",)) -> None:
    """Date every file, folder and link (not what it leads to) under `root`, and `root`, at
    `when`, as a checkout is; what lies under a folder named in `skip` is left as it is."""
    for folder, names, files in os.walk(root):
        if skip and not set(skip).isdisjoint(Path(folder).relative_to(root).parts):
            continue
        for name in (*names, *files):
            os.utime(os.path.join(folder, name), ns=(when, when), follow_symlinks=False)
    os.utime(root, ns=(when, when))


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """The caches' moment (cache.racy) an hour ahead: a tree dated with `age` or just written is
    as old to them as a checkout made an hour before, so they trust its stat data. `age` alone
    dates the mtimes; the ctimes stay recent (no call sets one) and the racy-clean rule reads
    both."""
    from import_policy.cache import racy

    monkeypatch.setattr(racy, "_clock", lambda: time.time_ns() + 3600 * 10**9)


class Tick:
    """What `one_tick` froze: the caches' moment, and the paths dated well before it."""

    def __init__(self, moment: int) -> None:
        self.moment = moment
        self.old: set[int] = set()  # inodes

    def age(self, path: Path) -> None:
        """Date `path` an hour before the tick: its stat data is trusted."""
        self.old.add(os.lstat(path).st_ino)


@pytest.fixture
def one_tick(monkeypatch: pytest.MonkeyPatch) -> Tick:
    """A file system whose clock has not moved since the tree was written: every stat record
    has the same mtime and ctime, one second before the caches' moment (cache.racy, frozen),
    so inside the racy window. A same-size rewrite in place then leaves a file's stat data
    (and a folder's) as it was: only the racy-clean rule tells it. `Tick.age` dates a path
    an hour earlier instead."""
    from import_policy.cache import racy
    from import_policy.cache import stat as stat_record
    from import_policy.graph import store

    tick = Tick(time.time_ns())
    real = stat_record.of_result

    def frozen(data: os.stat_result) -> stat_record.Stat:
        when = tick.moment - (3600 * 10**9 if data.st_ino in tick.old else 10**9)
        return real(data)._replace(mtime_ns=when, ctime_ns=when)

    monkeypatch.setattr(stat_record, "of_result", frozen)
    monkeypatch.setattr(store, "of_result", frozen)
    monkeypatch.setattr(racy, "_clock", lambda: tick.moment)
    return tick


def git(root: Path, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """git in `root`, with an identity of its own (a commit needs one; the machine may have none)."""
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *argv], cwd=root, capture_output=True, text=True, check=check,
    )


def snapshot(name: str, actual: str) -> None:
    """Compare with tests/snapshots/NAME; UPDATE_SNAPSHOTS=1 writes it. A missing snapshot
    fails: a test that writes its own expectation asserts nothing."""
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    if not path.exists():
        pytest.fail(f"snapshot {name} is missing: run with UPDATE_SNAPSHOTS=1 to write it, then review it")
    assert actual == path.read_bytes().decode("utf-8")  # as written: a CRLF in the output stays one


VLLM_SKELETON = {
    "vllm/__init__.py": "",
    "vllm/platforms/rocm.py": "",
    "vllm/v1/worker/gpu_worker.py": "",
    "vllm/v1/engine/core.py": "",
    "vllm/entrypoints/openai/api_server.py": "",
    "vllm/model_executor/layers/quantization/__init__.py": "",
    "vllm/triton_utils/__init__.py": "triton = tl = None\n",
    "vllm/tilelang_utils/__init__.py": "tilelang = T = None\n",
}


class Project:
    """A scratch project: files written under a tmp folder that is also the current folder."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.capsys = capsys

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def write_bytes(self, relative: str, data: bytes) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def config(self, text: str) -> Path:
        return self.write("import-policy.yaml", text)

    def vllm_skeleton(self) -> None:
        """What the `vllm` preset names must be in the tree (its entry modules and gateways):
        empty modules, each test writing what it is about on top."""
        for path, text in VLLM_SKELETON.items():
            self.write(path, text)

    def run(self, *argv: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        code = main(list(argv))
        captured = self.capsys.readouterr()
        return code, captured.out, captured.err

    def lines(self, *argv: str) -> list[str]:
        """The diagnostic lines of a text check, summary dropped."""
        _, out, _ = self.run("check", *argv)
        return [line for line in out.splitlines() if not line.startswith(("Found ", "All checks passed"))]


@pytest.fixture(autouse=True)
def _cache_key_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test (and every process it starts) keeps its cache key under the test session's
    tmp folder, never in the real ~/.cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
    monkeypatch.delenv("IMPORT_POLICY_CACHE_KEY", raising=False)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[Project]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    yield Project(tmp_path, capsys)
