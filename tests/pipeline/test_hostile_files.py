"""Hostile files: huge, deeply nested, binary, symlink loops, vanishing or unreadable files,
paths with spaces and non-ASCII characters. Each ends as diagnostics, never a crash or hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from import_policy.cli import main


POLICY = "version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n"

DEEP = {
    "brackets": "x = " + "[" * 5000 + "]" * 5000,
    "attributes": "x = a" + ".b" * 8000,
    "binary-operators": "x = 1" + " + 1" * 8000,
    "unary-operators": "x = " + "-" * 50000 + "1",
    "calls": "x = " + "f(" * 3000 + ")" * 3000,
    "attributes-libcst-depth": "x = a" + ".b" * 2000,  # CPython accepts it; libcst's visitor recurses too deep
}


def test_deep_nesting_is_a_syntax_error_diagnostic(tmp_path: Path) -> None:
    # In a subprocess: before the fix libcst's native parser overflowed its stack (SIGSEGV) on
    # nesting CPython refuses, which no `except` can catch; the other files must still be checked.
    (tmp_path / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    for shape, text in DEEP.items():
        (tmp_path / f"{shape}.py").write_text(text + "\nimport re\n", encoding="utf-8")
    (tmp_path / "plain.py").write_text("import re\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "import_policy", "check", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"},
    )
    assert (done.returncode, done.stderr) == (1, "")
    lines = done.stdout.splitlines()
    for shape in DEEP:
        mine = [line for line in lines if line.startswith(f"{shape}.py:")]
        if shape == "attributes-libcst-depth":
            # CPython accepts it, and no rule here needs libcst's scope analysis: CPython's
            # facts (facts.fast) check it, where libcst would give up.
            assert mine == [f"{shape}.py:2:8: no-re `re` is forbidden"], done.stdout
            continue
        assert len(mine) == 1 and " syntax-error the file does not parse: " in mine[0], done.stdout
    assert "plain.py:1:8: no-re `re` is forbidden" in lines
    assert lines[-1] == f"Found {len(DEEP) + 1} violations (0 fixable with --fix)."


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "import-policy.yaml").write_text(POLICY, encoding="utf-8")


@pytest.mark.slow
def test_a_10_mb_file_finishes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Many imports and functions, one forbidden at the end: CPython's parser reads it all
    # (about 10 s for 10 MB; a file libcst must parse runs at about 20 s per MB, see docs/reliability.md).
    _project(tmp_path, monkeypatch)
    chunk = "import os\nimport json\n\n\ndef f{i}(x):\n    import sys\n    return os.path.join(str(x), 'a{i}')\n\n\n"
    parts, size, i = [], 0, 0
    while size < 10 * 1024 * 1024:
        parts.append(chunk.format(i=i))
        size += len(parts[-1])
        i += 1
    (tmp_path / "big.py").write_text("".join(parts) + "import re\nif x:\n", encoding="utf-8")  # broken at the very end
    capsys.readouterr()
    assert main(["check", "--no-cache", "big.py"]) == 1
    assert capsys.readouterr().out.splitlines()[0].startswith(f"big.py:{9 * i + 2}:6: syntax-error ")


def test_binary_py_file_is_a_syntax_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _project(tmp_path, monkeypatch)
    (tmp_path / "blob.py").write_bytes(b"import re\n" + bytes(range(256)) * 64)
    (tmp_path / "elf.py").write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 100 + b"import re\n")
    (tmp_path / "utf16.py").write_bytes("import re\n".encode("utf-16"))
    capsys.readouterr()
    assert main(["check", "."]) == 1
    out = capsys.readouterr().out.splitlines()
    # elf.py and utf16.py spell no import a rule could report (a NUL byte before `import`, UTF-16):
    # never parsed (contract section 1).
    assert [line.split(" ")[:2] for line in out[:-1]] == [["blob.py:2:1:", "syntax-error"]]
    # A binary file no rule could report in is never parsed (contract section 1).
    (tmp_path / "other.py").write_bytes(bytes(range(256)) * 64)
    assert main(["check", "other.py"]) == 0


def test_symlink_loop_in_a_walked_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _project(tmp_path, monkeypatch)
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / "m.py").write_text("import re\n", encoding="utf-8")
    (tmp_path / "pkg" / "sub" / "up").symlink_to(tmp_path / "pkg")
    (tmp_path / "pkg" / "self").symlink_to(".")
    (tmp_path / "pkg" / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "pkg" / "a.py").symlink_to("b.py")
    (tmp_path / "pkg" / "b.py").symlink_to("a.py")
    capsys.readouterr()
    code = main(["check", "pkg"])
    out, err = capsys.readouterr()
    assert "pkg/sub/m.py:1:8: no-re `re` is forbidden" in out.splitlines()
    # The dangling and looping file links are said once each, and the run goes on.
    assert err.splitlines() == [f"import-policy: skipped pkg/{name}: a broken symbolic link" for name in ("a.py", "b.py", "dangling.py")]
    assert code == 1


def test_file_vanishing_or_unreadable_after_discovery(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # CI runs as root, where chmod 000 does not stop a read: simulate both at read time.
    from import_policy.pipeline import engine

    _project(tmp_path, monkeypatch)
    for name in ("gone.py", "locked.py", "ok.py"):
        (tmp_path / name).write_text("import re\n", encoding="utf-8")
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "gone.py":
            self.unlink()
            raise FileNotFoundError(2, "No such file or directory", str(self))
        if self.name == "locked.py":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    capsys.readouterr()
    code = main(["check", "--no-cache", "."])
    out, err = capsys.readouterr()
    assert code == 2
    assert out.splitlines()[0] == "ok.py:1:8: no-re `re` is forbidden"
    assert err.splitlines() == [
        "import-policy: cannot read gone.py: No such file or directory",
        "import-policy: cannot read locked.py: Permission denied",
    ]
    assert engine  # the read goes through engine.read_file -> Path.read_bytes


@pytest.mark.parametrize("folder", ["with space", "ünïcödé", "日本語 dir"])
def test_paths_with_spaces_and_non_ascii(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], folder: str
) -> None:
    _project(tmp_path, monkeypatch)
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "mödule x.py").write_text("import re\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["check", "."]) == 1
    assert capsys.readouterr().out.splitlines()[0] == f"{folder}/mödule x.py:1:8: no-re `re` is forbidden"
    assert main(["check", "--format", "json", f"{folder}/mödule x.py"]) == 1
    assert json.loads(capsys.readouterr().out)["diagnostics"][0]["path"] == f"{folder}/mödule x.py"
    monkeypatch.chdir(tmp_path / folder)
    assert main(["check", "--config", "../import-policy.yaml", "mödule x.py"]) == 1
    assert capsys.readouterr().out.splitlines()[0] == "mödule x.py:1:8: no-re `re` is forbidden"
