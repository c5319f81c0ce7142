"""A checkout is not trusted, its configuration aside: a cache it carries never changes a
result, a walk never follows one of its links out of the project root, `--fix` never writes
a file whose real path lies outside it, and special files neither hang nor end a run."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from import_policy.cache.facts import FOLDER, FactsCache
from import_policy.cache.key import ENVIRONMENT, _stored, cache_key
from import_policy.cache.run import Outcome, RunCache
from import_policy.cli import main
from import_policy.discovery.files import Locator, SourceFile, discover
from import_policy.facts.records.model import FileFacts
from import_policy.project.layout import layout_digest

POLICY = """\
version: 1
rules:
  - id: no-pickle
    forbid: [pickle]
  - id: no-re
    forbid: [re]
    fix: {replace_module: regex}
"""
PICKLE = "m.py:1:8: no-pickle `pickle` is forbidden"


def _check(cwd: Path, cache_home: Path, *args: str, key: str | None = None, timeout: float = 120) -> tuple[int, str, str]:
    """`import-policy check` in a process of its own, whose user's cache folder is `cache_home`."""
    env = {**os.environ, "NO_COLOR": "1", "XDG_CACHE_HOME": str(cache_home)}
    env.pop(ENVIRONMENT, None)
    if key is not None:
        env[ENVIRONMENT] = key
    ran = subprocess.run(
        [sys.executable, "-m", "import_policy", "check", *args], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=timeout,
    )
    return ran.returncode, ran.stdout, ran.stderr


def _reseal(path: Path, change: object, key: str | None) -> None:
    """What a pull request can do to a cache entry: edit it and, knowing its own key (not the
    victim's), seal it again as the tool would."""
    data = json.loads(path.read_bytes())
    data.pop("mac", None)
    assert callable(change)
    change(data)
    text = json.dumps(data, separators=(",", ":"))
    if key is None:
        path.write_text(text, encoding="utf-8")
        return
    purpose = {"runs": b"run", "walk": b"walk", "built": b"built-policy"}.get(path.parent.name, b"facts")
    secret = hashlib.blake2b(key.encode(), digest_size=32, person=b"import-policy").digest()
    body = text[1:].encode()
    mac = hashlib.blake2b(body, key=secret, digest_size=32, person=purpose).hexdigest()
    path.write_bytes(b'{"mac":"' + mac.encode() + b'",' + body)


def _fresh_clone(checkout: Path) -> None:
    """The checkout, cache folder and all, as a CI runner's fresh clone at the same place
    would have it: same bytes, new mtimes."""
    pushed = checkout.with_name("pushed")
    checkout.rename(pushed)
    shutil.copytree(pushed, checkout, symlinks=True, copy_function=shutil.copy)
    shutil.rmtree(pushed)
    for path in checkout.rglob("*.py"):
        path.touch()


def _forged(tmp_path: Path, which: str, attacker_key: str | None) -> Path:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    (checkout / "m.py").write_text("import pickle\n", encoding="utf-8")
    attacker = tmp_path / "attacker-cache"
    assert _check(checkout, attacker, ".", key=attacker_key)[:2] == (1, PICKLE + "\nFound 1 violation (0 fixable with --fix).\n")
    cache = checkout / FOLDER
    for entry in cache.rglob("*.json"):
        folder = entry.parent.name
        if which == "facts" and folder not in ("runs", "walk", "policies", "built", "ignores"):
            _reseal(entry, lambda data: data["facts"].update(imports=[]), attacker_key)
        elif which == "run" and folder == "runs":
            _reseal(entry, lambda data: data.update(diagnostics=[]), attacker_key)
        elif which == "built" and folder == "built":
            _reseal(entry, lambda data: data["built"]["v"]["policy"]["v"]["rules"].update(t=[]), attacker_key)
        elif folder == "runs" or (which == "built" and folder == "policies"):
            entry.unlink()  # the forgery goes through the per-file cache, or the built policy
    if attacker_key is not None:  # the forgery works for whoever holds the key it was sealed with
        assert _check(checkout, attacker, ".", key=attacker_key)[:2] == (0, "All checks passed!\n")
    _fresh_clone(checkout)
    return checkout


@pytest.mark.slow
@pytest.mark.parametrize("attacker_key", [None, "the attacker's own key"])
@pytest.mark.parametrize("which", ["facts", "run", "built"])
def test_a_forged_cache_entry_in_a_fresh_clone_changes_nothing(tmp_path: Path, which: str, attacker_key: str | None) -> None:
    checkout = _forged(tmp_path, which, attacker_key)
    victim = tmp_path / "ci-runner-cache"
    code, out, _ = _check(checkout, victim, ".")
    assert (code, out.splitlines()[0]) == (1, PICKLE)
    assert _check(checkout, victim, ".")[:2] == (code, out)  # rewritten under the victim's key, and still right
    assert _check(checkout, victim, "--no-cache", ".")[:2] == (code, out)


def test_a_cache_written_under_one_key_is_ignored_under_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "m.py"
    source.write_text("import pickle\n", encoding="utf-8")
    files = [SourceFile(source, "m.py", "python")]
    monkeypatch.setenv(ENVIRONMENT, "one")
    facts, runs = FactsCache(tmp_path), RunCache(tmp_path)
    key = facts.key(b"import pickle\n", "m.py", "m", False, "facts")
    facts.put(key, FileFacts("m.py", "m", False))
    snapshot = RunCache.snapshot(files)
    assert snapshot is not None
    runs.put("k", files, snapshot, Outcome([], 1, [], []), (['.'], layout_digest(tmp_path, ['.'])))
    assert discover([tmp_path], tmp_path, (), remember=True) == files
    walk_entries = list((tmp_path / FOLDER / "walk").glob("*.json"))
    assert FactsCache(tmp_path).get(key) is not None and RunCache(tmp_path).get("k", files) is not None
    monkeypatch.setenv(ENVIRONMENT, "another")
    assert FactsCache(tmp_path).get(key) is None and RunCache(tmp_path).get("k", files) is None
    assert discover([tmp_path], tmp_path, (), remember=True) == files
    assert [p.read_bytes() for p in walk_entries] != []  # the walk entry was rewritten under the new key
    monkeypatch.setenv(ENVIRONMENT, "one")
    assert FactsCache(tmp_path).get(key) is not None


@pytest.mark.slow
def test_the_key_lives_in_the_users_cache_folder_with_mode_0600(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "xdg"
    project = tmp_path / "project"
    project.mkdir()
    (project / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    (project / "m.py").write_text("import pickle\n", encoding="utf-8")
    runs = [
        subprocess.Popen([sys.executable, "-m", "import_policy", "check", "."], cwd=project,
                         env={**os.environ, "XDG_CACHE_HOME": str(home), "NO_COLOR": "1"},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    assert [p.wait(timeout=120) for p in runs] == [1, 1, 1, 1]
    key = home / "import-policy" / "key"
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in key.parent.iterdir()] == ["key"]  # concurrent first runs agreed on one key
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    first = cache_key(project)
    assert first is not None and len(first) == 32
    key.write_text("short\n", encoding="utf-8")  # a damaged key file is made again
    assert cache_key(project) == first  # (once read, a process keeps its key)
    made = _stored(os.path.realpath(project))
    assert made is not None and len(made) == 64 and key.read_bytes().strip() == made
    assert oct(key.stat().st_mode & 0o777) == "0o600"


def _tree(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    (folder / "m.py").write_text("import pickle\n", encoding="utf-8")
    return folder


FOUND = (1, PICKLE + "\nFound 1 violation (0 fixable with --fix).\n")


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "link to a key", "huge", "folder"])
def test_a_key_file_that_is_not_a_small_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    project = _tree(tmp_path / "project")
    home = tmp_path / "xdg"
    key = home / "import-policy" / "key"
    key.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(key)  # before: the run blocked for ever opening it
    elif kind == "link to /dev/zero":
        key.symlink_to("/dev/zero")  # before: 9.7 GB read in 10 s
    elif kind == "link to a key":
        (tmp_path / "elsewhere").write_text("k" * 64 + "\n", encoding="utf-8")
        key.symlink_to(tmp_path / "elsewhere")
    elif kind == "huge":
        key.write_bytes(b"k" * (64 << 20))
    else:
        key.mkdir()
    assert _check(project, home, ".", timeout=60)[:2] == FOUND
    assert _check(project, home, ".", timeout=60)[:2] == FOUND
    if kind != "folder":  # a fresh key took its place (a folder stays: the run goes without caches)
        assert not key.is_symlink() and key.is_file() and len(key.read_bytes().strip()) == 64
    assert (tmp_path / "elsewhere").read_text(encoding="utf-8") == "k" * 64 + "\n" if kind == "link to a key" else True


@pytest.mark.slow
def test_a_key_inside_the_project_root_is_never_kept_nor_trusted(tmp_path: Path) -> None:
    # A CI job that points XDG_CACHE_HOME into the checkout (to have a cache action keep it):
    # a pull request commits a key and cache entries sealed with it.
    checkout = _tree(tmp_path / "checkout")
    home = checkout / ".cache"
    assert _check(checkout, home, ".")[:2] == FOUND
    assert not home.exists()  # no key was made inside the project
    key = home / "import-policy" / "key"
    key.parent.mkdir(parents=True)
    planted = "p" * 64
    key.write_text(planted + "\n", encoding="utf-8")
    key.chmod(0o600)
    assert _check(checkout, tmp_path / "attacker", ".", key=planted)[:2] == FOUND
    for entry in (checkout / FOLDER).rglob("*.json"):
        if entry.parent.name == "runs":
            _reseal(entry, lambda data: data.update(diagnostics=[]), planted)
    assert _check(checkout, tmp_path / "attacker", ".", key=planted)[:2] == (0, "All checks passed!\n")
    _fresh_clone(checkout)
    assert _check(checkout, home, ".")[:2] == FOUND
    assert _check(checkout, home, ".")[:2] == FOUND
    assert key.read_text(encoding="utf-8") == planted + "\n"  # never replaced: it is not ours to keep
    # Through a link, or with the checkout itself reached through one: the same.
    linked = tmp_path / "linked-checkout"
    linked.symlink_to(checkout)
    assert _check(linked, linked / ".cache", ".")[:2] == FOUND


def test_the_environment_key_needs_no_file(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    (tmp_path / "m.py").write_text("import pickle\n", encoding="utf-8")
    home = tmp_path / "xdg"
    assert _check(tmp_path, home, ".", key="shared-by-ci")[0] == 1
    assert not home.exists()
    assert list((tmp_path / FOLDER).rglob("*.json"))


def test_no_key_to_be_had_means_no_cache_not_a_failure(tmp_path: Path) -> None:
    project = _tree(tmp_path / "project")
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("", encoding="utf-8")
    for _ in range(2):
        assert _check(project, blocked, ".") == (1, PICKLE + "\nFound 1 violation (0 fixable with --fix).\n", "")
    assert not (project / FOLDER).exists()


@pytest.mark.slow
def test_the_cache_folder_never_leads_a_write_or_a_read_elsewhere(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    (project / "m.py").write_text("import pickle\n", encoding="utf-8")
    home = tmp_path / "xdg"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for i in range(12):  # a run prunes all but a few entries of runs/: never these
        (elsewhere / f"{i}.json").write_text("{}", encoding="utf-8")
    (project / FOLDER).mkdir()
    (project / FOLDER / "runs").symlink_to(elsewhere)
    assert _check(project, home, ".")[0] == 1
    assert _check(project, home, "--select", "no-re", ".")[0] == 0
    assert sorted(p.name for p in elsewhere.iterdir()) == sorted(f"{i}.json" for i in range(12))
    shutil.rmtree(project / FOLDER)
    (project / FOLDER).symlink_to(elsewhere)
    assert _check(project, home, ".")[0] == 1
    assert sorted(p.name for p in elsewhere.iterdir()) == sorted(f"{i}.json" for i in range(12))
    # Entries that are links to a FIFO: following one would block the run for ever.
    (project / FOLDER).unlink()
    assert _check(project, home, ".")[0] == 1
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for entry in (project / FOLDER).rglob("*.json"):
        entry.unlink()
        entry.symlink_to(fifo)
    assert _check(project, home, ".", timeout=60)[:2] == (1, PICKLE + "\nFound 1 violation (0 fixable with --fix).\n")


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    root = tmp_path / "project"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_COLOR", "1")
    return root, outside


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_fix_never_writes_a_file_outside_the_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, outside = _project(tmp_path, monkeypatch)
    (outside / "x.py").write_text("import re\n", encoding="utf-8")
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").symlink_to(outside / "x.py")
    (root / "pkg" / "b.py").write_text("import os\n", encoding="utf-8")
    finding = "pkg/a.py:1:8: no-re `re` is forbidden (fix not applied: the file resolves outside the project root)"
    for argv in (["--fix", "pkg/a.py"], ["--fix", "--unsafe-fixes", "pkg/a.py"]):
        code, out, _ = _run(capsys, "check", *argv)
        assert (code, out) == (1, finding + "\nFound 1 violation (0 fixable with --fix).\n")
    assert _run(capsys, "check", "--diff", "pkg/a.py")[:2] == (0, "")  # nothing --fix would write
    # Named by its own path, it has no configuration above it: the built-in preset judges it
    # (nothing to fix); under --config, the project's rules do, and its fix is refused.
    code, out, err = _run(capsys, "check", "--fix", str(outside / "x.py"))
    assert (code, out) == (0, "All checks passed!\n") and "built-in rocm-safety preset" in err
    code, out, _ = _run(capsys, "check", "--config", "import-policy.yaml", "--fix", str(outside / "x.py"))
    assert code == 1 and "(fix not applied: the file resolves outside the project root)" in out
    code, out, err = _run(capsys, "check", "--fix", ".")  # a walk does not even read it
    assert (code, out, err) == (0, "All checks passed!\n", "import-policy: skipped pkg/a.py: a symbolic link to outside the project root\n")
    assert (outside / "x.py").read_text(encoding="utf-8") == "import re\n"


def test_a_walk_never_follows_a_link_out_of_the_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, outside = _project(tmp_path, monkeypatch)
    (outside / "os_like.py").write_text("import pickle\n", encoding="utf-8")
    (root / "m.py").write_text("import pickle\n", encoding="utf-8")
    (root / "pylib").symlink_to(outside)
    (root / "machine").symlink_to("/")
    (root / "x.py").symlink_to(outside / "os_like.py")
    expected = (1, PICKLE + "\nFound 1 violation (0 fixable with --fix).\n", "".join(
        f"import-policy: skipped {name}: a symbolic link to outside the project root\n" for name in ("machine", "pylib", "x.py")
    ))
    assert _run(capsys, "check", "--no-cache", ".") == expected
    assert _run(capsys, "check", ".") == expected
    assert _run(capsys, "check", ".") == expected  # the walk cache says the same
    skipped = "import-policy: skipped pylib: a symbolic link to outside the project root\n"
    code, out, err = _run(capsys, "check", "pylib")  # named, it is still a walk
    assert (code, "os_like" in out, err.splitlines()[0]) == (0, False, skipped.strip())
    # A folder outside, named by its own path, is the user's call (under --config, the project's
    # rules; alone, it has no configuration above it and gets the preset).
    code, out, _ = _run(capsys, "check", "--config", "import-policy.yaml", str(outside))
    assert code == 1 and "os_like.py:1:8: no-pickle" in out
    (root / "pylib").unlink()  # retargeted: a link is looked at again on every walk
    (root / "pylib").symlink_to(root / "inner")
    (root / "inner").mkdir()
    code, out, _ = _run(capsys, "check", ".")
    assert code == 1 and "pylib" not in out


def test_links_inside_the_root_keep_working(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = _project(tmp_path, monkeypatch)
    (root / "import-policy.yaml").write_text(POLICY + 'exclude: ["build/**"]\n', encoding="utf-8")
    (root / "build" / "pkg").mkdir(parents=True)
    (root / "build" / "pkg" / "m.py").write_text("import pickle\n", encoding="utf-8")
    (root / "pkg").symlink_to("build/pkg")
    (root / "build" / "other.py").write_text("import pickle\n", encoding="utf-8")
    (root / "one.py").symlink_to("build/other.py")
    expected = (1, "one.py:1:8: no-pickle `pickle` is forbidden\npkg/m.py:1:8: no-pickle `pickle` is forbidden\nFound 2 violations (0 fixable with --fix).\n", "")
    for _ in range(3):
        assert _run(capsys, "check", ".") == expected


def test_the_same_real_file_by_two_paths_is_checked_at_each_and_fixed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Python imports pkg.b, alias.a and alias.b from the links' own paths (contract section 4).
    root, _ = _project(tmp_path, monkeypatch)
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("import re\n", encoding="utf-8")
    (root / "pkg" / "b.py").symlink_to("a.py")
    (root / "alias").symlink_to("pkg")
    found = "".join(f"{path}:1:8: no-re [*] `re` is forbidden\n" for path in ("alias/a.py", "alias/b.py", "pkg/a.py", "pkg/b.py"))
    expected = (1, found + "Found 4 violations (4 fixable with --fix).\n", "")
    assert _run(capsys, "check", ".") == expected
    assert _run(capsys, "check", "alias", "pkg/b.py", "pkg") == expected
    code, out, _ = _run(capsys, "check", "--diff", ".")
    assert (code, out.count("+++ b/"), "+++ b/pkg/a.py" in out) == (1, 1, True)  # once, under the real path
    assert _run(capsys, "check", "--fix", ".") == (0, "Found 4 violations (4 fixed, 0 remaining).\n", "")
    assert (root / "pkg" / "a.py").read_text(encoding="utf-8") == "import regex as re\n"
    assert (root / "pkg" / "b.py").is_symlink() and (root / "alias").is_symlink()


def test_the_rocm_pass_looks_up_modules_as_a_walk_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, outside = _project(tmp_path, monkeypatch)
    (outside / "ext").mkdir()
    for path in (outside / "x.py", outside / "ext" / "y.py", root / "pkg" / "real.py"):
        path.parent.mkdir(exist_ok=True)
        path.write_text("import triton\n", encoding="utf-8")
    (root / "pkg" / "x.py").symlink_to(outside / "x.py")
    (root / "pkg" / "ext").symlink_to(outside / "ext")
    (root / "pkg" / "alias.py").symlink_to("real.py")
    os.mkfifo(root / "pkg" / "fifo.py")
    locator = Locator(root, ())
    assert [locator.walked(f"pkg/{name}") for name in ("x.py", "ext/y.py", "alias.py", "real.py", "fifo.py")] == [
        False, False, True, True, False,
    ]


def test_a_linked_gitignore_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, outside = _project(tmp_path, monkeypatch)
    (outside / "ignore-all").write_text("*\n", encoding="utf-8")
    (root / ".gitignore").symlink_to(outside / "ignore-all")  # git does not follow it either
    (root / "m.py").write_text("import pickle\n", encoding="utf-8")
    assert _run(capsys, "check", ".")[:2] == (1, PICKLE + "\nFound 1 violation (0 fixable with --fix).\n")


def test_special_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = _project(tmp_path, monkeypatch)
    (root / "pkg").mkdir()
    (root / "pkg" / "ok.py").write_text("import re\n", encoding="utf-8")
    os.mkfifo(root / "pkg" / "fifo.py")
    (root / "pkg" / "link_to_fifo.py").symlink_to("fifo.py")
    (root / "pkg" / "dangling.py").symlink_to("nowhere.py")
    (root / "pkg" / "notes").symlink_to("nowhere")  # not a source file's name: nothing to say
    # In a process of its own: before, reading the FIFO blocked for ever.
    expected = (
        1, "pkg/ok.py:1:8: no-re [*] `re` is forbidden\nFound 1 violation (1 fixable with --fix).\n",
        "import-policy: skipped pkg/dangling.py: a broken symbolic link\n",
    )
    assert _check(root, tmp_path / "xdg", ".", timeout=60) == expected
    assert _check(root, tmp_path / "xdg", ".", timeout=60) == expected  # from the walk cache
    code, out, err = _run(capsys, "check", "pkg/fifo.py", "pkg/ok.py")
    # Named, each is said and the rest still checked (ruff's E902).
    assert (code, out, err) == (2, expected[1], "import-policy: cannot read pkg/fifo.py: not a regular file\n")
    code, _, err = _run(capsys, "check", "nope.py", "pkg/fifo.py")
    assert (code, err) == (2, "import-policy: cannot read nope.py: No such file or directory\nimport-policy: cannot read pkg/fifo.py: not a regular file\n")
