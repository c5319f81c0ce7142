"""`kind: include` and `kind: token` rules end to end, through `main(argv)`."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from import_policy.pipeline.engine import check_c as check_file
from import_policy.cli import main
from import_policy.policy.load import load

CONFIG = r"""
version: 1
rules:
  - id: no-aten
    kind: include
    files: ["csrc/"]
    forbid: ["ATen/**", "torch/**"]
    except: ["torch/csrc/stable/**"]
  - id: stable-macro
    kind: token
    files: ["csrc/"]
    forbid: ['(?<!STABLE_)TORCH_LIBRARY(_IMPL|_FRAGMENT)?\b']
  - id: no-pickle
    forbid: [pickle]
"""


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], config: str = CONFIG) -> tuple[int, str]:
    (tmp_path / "import-policy.yaml").write_text(textwrap.dedent(config), encoding="utf-8")
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    capsys.readouterr()
    code = main(["check"])
    out, _ = capsys.readouterr()
    return code, out


@pytest.fixture(autouse=True)
def _chdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")


# --- kind: include -------------------------------------------------------------


def test_include_flagged_at_the_header_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(tmp_path, capsys, {"csrc/a.cu": '#include <ATen/ATen.h>\n#  include "torch/all.h"\n'})
    assert code == 1
    assert out == (
        "csrc/a.cu:1:11: no-aten `#include <ATen/ATen.h>` is forbidden\n"
        'csrc/a.cu:2:13: no-aten `#include "torch/all.h"` is forbidden\n'
        "Found 2 violations (0 fixable with --fix).\n"
    )


def test_include_under_an_except_folder_is_allowed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(
        tmp_path, capsys,
        {"csrc/a.cpp": "#include <torch/csrc/stable/tensor.h>\n#include <cuda_runtime.h>\n#include \"ops.h\"\n"},
    )
    assert (code, out) == (0, "All checks passed!\n")


def test_include_in_comments_is_not_seen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = (
        "// #include <ATen/ATen.h>\n"
        "/* the old way:\n"
        "#include <torch/all.h>\n"
        "*/\n"
        "#include <torch/csrc/stable/ops.h> // not <ATen/ATen.h>\n"
    )
    code, out = run(tmp_path, capsys, {"csrc/a.cpp": source})
    assert (code, out) == (0, "All checks passed!\n")


def test_include_under_if_0_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The preprocessor is not evaluated (docs/cfamily.md): a dead branch is checked like live code.
    source = "#if 0\n#include <ATen/ATen.h>\n#endif\n"
    code, out = run(tmp_path, capsys, {"csrc/a.h": source})
    assert code == 1
    assert out.splitlines()[0] == "csrc/a.h:2:11: no-aten `#include <ATen/ATen.h>` is forbidden"


def test_include_rule_message_replaces_the_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = """
    version: 1
    rules:
      - id: no-c10
        kind: include
        message: "Use torch/headeronly/ instead."
        forbid: ["c10/"]
    """
    code, out = run(tmp_path, capsys, {"x.hpp": "#include <c10/util/Half.h>\n#include <c10x/y.h>\n"}, config)
    assert out == "x.hpp:1:11: no-c10 Use torch/headeronly/ instead.\nFound 1 violation (0 fixable with --fix).\n"
    assert code == 1


# --- kind: token ---------------------------------------------------------------


def test_token_macros_with_and_without_prefix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = (
        "STABLE_TORCH_LIBRARY(_C, m) {}\n"
        "STABLE_TORCH_LIBRARY_IMPL(_C, CUDA, m) {}\n"
        "  TORCH_LIBRARY(_C, m) {}\n"
        "x; TORCH_LIBRARY_IMPL(_C, CUDA, m) {}\n"
    )
    code, out = run(tmp_path, capsys, {"csrc/b.cpp": source})
    assert code == 1
    assert out == (
        "csrc/b.cpp:3:3: stable-macro `TORCH_LIBRARY` is forbidden\n"
        "csrc/b.cpp:4:4: stable-macro `TORCH_LIBRARY_IMPL` is forbidden\n"
        "Found 2 violations (0 fixable with --fix).\n"
    )


def test_token_block_comment_across_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = "int a; /* migrated from\n   TORCH_LIBRARY(_C, m)\n   to the stable ABI */ TORCH_LIBRARY_FRAGMENT(x, m)\n"
    code, out = run(tmp_path, capsys, {"csrc/c.cu": source})
    assert code == 1
    assert out == (
        "csrc/c.cu:3:25: stable-macro `TORCH_LIBRARY_FRAGMENT` is forbidden\n"
        "Found 1 violation (0 fixable with --fix).\n"
    )


def test_token_strings_and_raw_strings_are_blanked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = (
        'const char* a = "TORCH_LIBRARY(_C, m)";\n'
        "const char* b = R\"doc(\n"
        "TORCH_LIBRARY(_C, m) {}\n"
        ")doc\";\n"
        "char c = 'T'; // TORCH_LIBRARY\n"
        "const char* d = \"escaped \\\" TORCH_LIBRARY\"; TORCH_LIBRARY(y, m)\n"
    )
    code, out = run(tmp_path, capsys, {"csrc/d.cc": source})
    assert out.splitlines()[:-1] == ["csrc/d.cc:6:45: stable-macro `TORCH_LIBRARY` is forbidden"]
    assert code == 1


def test_token_suppression_comment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = (
        "TORCH_LIBRARY(a, m) {}  // import-policy: ignore[stable-macro]\n"
        "TORCH_LIBRARY(b, m) {}  /* import-policy: ignore */\n"
        "TORCH_LIBRARY(c, m) {}  // import-policy: ignore[other-rule]\n"
        'TORCH_LIBRARY(d, m) {}; const char* s = "import-policy: ignore";\n'
        "#include <ATen/ATen.h>  // import-policy: ignore[no-aten]\n"
    )
    code, out = run(tmp_path, capsys, {"csrc/e.cpp": source})
    assert code == 1
    assert out.splitlines()[:-1] == [
        "csrc/e.cpp:3:1: stable-macro `TORCH_LIBRARY` is forbidden",
        "csrc/e.cpp:4:1: stable-macro `TORCH_LIBRARY` is forbidden",
    ]


def test_ignore_file_in_the_first_ten_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    early = "// import-policy: ignore-file\n#include <ATen/ATen.h>\nTORCH_LIBRARY(a, m) {}\n"
    late = "\n" * 10 + "// import-policy: ignore-file\nTORCH_LIBRARY(a, m) {}\n"
    code, out = run(tmp_path, capsys, {"csrc/early.cpp": early, "csrc/late.cpp": late})
    assert code == 1
    assert out.splitlines()[:-1] == ["csrc/late.cpp:12:1: stable-macro `TORCH_LIBRARY` is forbidden"]


@pytest.mark.slow
def test_catastrophic_regex_times_out_as_a_diagnostic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = r"""
    version: 1
    rules:
      - id: slow
        kind: token
        forbid: ['(a|aa)+$', '\bzzz\b']
    """
    code, out = run(tmp_path, capsys, {"k.cu": "a" * 40 + "!\nzzz\n"}, config)
    assert code == 1
    assert out.splitlines()[:-1] == [
        "k.cu:1:1: slow token pattern '(a|aa)+$' timed out after 1s on this file; the file was not checked "
        "against it (simplify the pattern: nested quantifiers backtrack catastrophically)",
        "k.cu:2:1: slow `zzz` is forbidden",
    ]


# --- which files get which rules -------------------------------------------------


def test_files_and_languages_are_kept_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = r"""
    version: 1
    rules:
      - id: no-pickle
        forbid: [pickle]
      - id: tok
        kind: token
        forbid: ['\bpickle\b', 'TORCH_LIBRARY']
      - id: inc
        kind: include
        forbid: ["pickle"]
    """
    files = {
        # A Python file never meets token/include rules, a C file never meets import rules.
        "m.py": "import pickle\n# TORCH_LIBRARY\nx = 'TORCH_LIBRARY'\n",
        "n.c": "#include \"pickle\"\nint pickle;\n",
        "notes.txt": "TORCH_LIBRARY\n",
    }
    code, out = run(tmp_path, capsys, files, config)
    assert code == 1
    assert out.splitlines()[:-1] == [
        "m.py:1:8: no-pickle `pickle` is forbidden",
        'n.c:1:11: inc `#include "pickle"` is forbidden',
        "n.c:2:5: tok `pickle` is forbidden",
    ]


def test_files_and_allow_in_scope_the_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {"csrc/a.cu": "TORCH_LIBRARY(a, m)\n", "other/a.cu": "TORCH_LIBRARY(a, m)\n"}
    code, out = run(tmp_path, capsys, files)
    assert out.splitlines()[:-1] == ["csrc/a.cu:1:1: stable-macro `TORCH_LIBRARY` is forbidden"]
    capsys.readouterr()
    assert main(["check", "--ignore", "stable-macro"]) == 0


def test_undecodable_bytes_are_replaced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc/latin1.cpp").write_bytes(b"// caf\xe9\nint \xe9; TORCH_LIBRARY(a, m)\n")
    code, out = run(tmp_path, capsys, {})
    assert code == 1
    assert out.splitlines()[:-1] == ["csrc/latin1.cpp:2:8: stable-macro `TORCH_LIBRARY` is forbidden"]


# --- the stable-abi preset -----------------------------------------------------------


STABLE_SOURCE = """\
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <ATen/cuda/CUDAContext.h>
#include <torch/all.h>
#include <c10/util/Half.h>
// TORCH_CHECK(x) and #include <torch/extension.h> in a comment
STD_TORCH_CHECK(ok, "TORCH_CHECK in a string");
TORCH_CHECK(bad);
TORCH_CHECK_EQ(a, b);
STABLE_TORCH_LIBRARY_FRAGMENT(_C, m) {}
TORCH_LIBRARY(_C, m) {}
PYBIND11_MODULE(_C, m) {}
AT_DISPATCH_FLOATING_TYPES(t, "k", [&] {});
void f(at::Tensor& out, at::ScalarType t, torch::stable::Tensor& fine);
"""


def test_stable_abi_preset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = "version: 1\nextends: [stable-abi]\n"
    files = {
        "csrc/ops.cu": STABLE_SOURCE,
        "csrc/cpu/ops.cpp": STABLE_SOURCE,  # exempt: the CPU extension is not on the stable ABI yet
        "csrc/attention/octave_attn.cu": STABLE_SOURCE,  # exempt: legacy HIP _C extension
        "csrc/core/registration.h": "#define TORCH_LIBRARY_EXPAND(N, M) TORCH_LIBRARY(N, M)\n",
        "tools/x.cpp": STABLE_SOURCE,  # outside csrc/
    }
    code, out = run(tmp_path, capsys, files, config)
    assert code == 1
    rows = [line.split(" ", 2)[:2] for line in out.splitlines()[:-1]]
    assert rows == [
        ["csrc/ops.cu:4:11:", "stable-abi-include"],
        ["csrc/ops.cu:5:11:", "stable-abi-include"],
        ["csrc/ops.cu:6:11:", "stable-abi-include"],
        ["csrc/ops.cu:9:1:", "stable-abi-torch-check"],
        ["csrc/ops.cu:10:1:", "stable-abi-torch-check"],
        ["csrc/ops.cu:12:1:", "stable-abi-torch-library"],
        ["csrc/ops.cu:13:1:", "stable-abi-pybind11"],
        ["csrc/ops.cu:14:1:", "stable-abi-at-dispatch"],
        ["csrc/ops.cu:15:8:", "stable-abi-aten-types"],
        ["csrc/ops.cu:15:25:", "stable-abi-aten-types"],
    ]


def test_stable_abi_preset_examples_hold() -> None:
    """Each preset rule's flag examples give a finding of that rule, its allow examples none."""
    import os

    os.makedirs("csrc", exist_ok=True)
    Path("import-policy.yaml").write_text("version: 1\nextends: [stable-abi]\n", encoding="utf-8")
    policy = load(None, Path.cwd()).policy
    assert len(policy.rules) == 6
    for rule in policy.rules:
        assert rule.examples.flag and rule.examples.allow, rule.id
        assert rule.applies_to("csrc/example.cu")
        for snippet in rule.examples.flag:
            found = check_file([rule], "csrc/example.cu", snippet.encode())  # type: ignore[list-item]
            assert [d.rule for d in found][:1] == [rule.id], (rule.id, snippet)
        for snippet in rule.examples.allow:
            assert check_file([rule], "csrc/example.cu", snippet.encode()) == [], (rule.id, snippet)  # type: ignore[list-item]
