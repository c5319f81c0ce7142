"""The preprocessor's own spellings of a directive and a token (translation phases 1-3:
line splices, the `%:` digraph, `#import`) and the header paths the file system resolves
to the same file (`ATen//x.h`, `./ATen/x.h`, `torch/csrc/stable/../../../ATen/ATen.h`):
each is found, at the line where its token starts. Where g++ is installed, it says first
that it reads each spelling so (the header really is included, the macro really expands)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import Project

CONFIG = """\
version: 1
rules:
  - id: abi-include
    kind: include
    forbid: ["ATen/**", "torch/**"]
    except: ["torch/csrc/stable/**"]
  - id: abi-macro
    kind: token
    forbid: ['\\bTORCH_LIBRARY(?:_IMPL)?\\b']
"""

# file text, the line of the finding (where the path or the token starts)
INCLUDES = {
    "digraph.cpp": ("%:include <ATen/x.h>\n", 1),
    "digraph_spaced.cpp": ("  %:  include <ATen/x.h>\n", 1),
    "import.cpp": ("#import <ATen/x.h>\n", 1),
    "splice_hash.cpp": ("#\\\ninclude <ATen/x.h>\n", 2),
    "splice_word.cpp": ("#inc\\\nlude <ATen/x.h>\n", 2),
    "splice_path.cpp": ("#include <ATen/\\\nx.h>\n", 1),
    "splice_space.cpp": ("#include \\  \n<ATen/x.h>\n", 2),
    "double_slash.cpp": ("int a;\n#include <ATen//x.h>\n", 2),
    "dot_slash.cpp": ("#include <./ATen/x.h>\n", 1),
    "climbs_out.cpp": ("#include <torch/csrc/stable/../../../ATen/ATen.h>\n", 1),
    "comment_between.cpp": ("#/* c */include <ATen/x.h>\n", 1),
}
ALLOWED = {
    "stable.cpp": "#include <torch/csrc/stable/library.h>\n",
    "stable_dotted.cpp": "#include <torch/csrc/./stable//library.h>\n",
    "include_next.cpp": "#include_next <ATen/x.h>\n",
    "in_comment.cpp": "// #include <ATen/x.h>\n/* %:include <ATen/x.h> */\n",
}
TOKENS = {
    "token_splice.cpp": ("int a;\nTORCH_\\\nLIBRARY(ops, m) {}\n", 2),
    "token_splice_twice.cpp": ("TORCH\\\n_LIB\\\nRARY_IMPL(ops, CPU, m) {}\n", 1),
}


def _headers(folder: Path) -> Path:
    """Stand-in headers with markers, in the layout the paths above resolve through."""
    for header, marker in (("ATen/x.h", "aten_x"), ("ATen/ATen.h", "aten_aten"), ("torch/csrc/stable/library.h", "stable")):
        path = folder / header
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"int {marker}_marker;\n", encoding="utf-8")
    return folder


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("name", sorted(INCLUDES))
def test_gxx_includes_each_spelling(tmp_path: Path, name: str) -> None:
    text = INCLUDES[name][0]
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    done = subprocess.run(
        ["g++", "-E", "-P", "-x", "c++", "-I", str(_headers(tmp_path / "inc")), str(source)],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "aten_" in done.stdout  # an ATen header really is included


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("name", sorted(TOKENS))
def test_gxx_reads_each_token_whole(tmp_path: Path, name: str) -> None:
    source = tmp_path / name
    source.write_text("#define TORCH_LIBRARY(a, b) int torch_library_marker\n#define TORCH_LIBRARY_IMPL(a, b, c) int torch_library_marker\n" + TOKENS[name][0], encoding="utf-8")
    done = subprocess.run(["g++", "-E", "-P", "-x", "c++", str(source)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "torch_library_marker" in done.stdout, done.stderr


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_gxx_leaves_the_allowed_ones_alone(tmp_path: Path) -> None:
    for name, text in ALLOWED.items():
        if name == "include_next.cpp":
            continue  # GNU's search from the next folder: a header of its own, not a new dependency
        source = tmp_path / name
        source.write_text(text, encoding="utf-8")
        done = subprocess.run(
            ["g++", "-E", "-P", "-x", "c++", "-I", str(_headers(tmp_path / "inc")), str(source)],
            capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 0 and "aten_" not in done.stdout, (name, done.stdout)


def test_each_spelling_is_found_at_its_line(project: Project) -> None:
    project.config(CONFIG)
    for name, (text, _) in {**INCLUDES, **TOKENS}.items():
        project.write(f"csrc/{name}", text)
    for name, text in ALLOWED.items():
        project.write(f"csrc/{name}", text)
    code, out, err = project.run("check", "--no-cache")
    assert code == 1, err
    found = {line.split(":")[0].removeprefix("csrc/"): (int(line.split(":")[1]), line.split(" ")[1]) for line in out.splitlines()[:-1]}
    expected = {name: (line, "abi-include") for name, (_, line) in INCLUDES.items()}
    expected.update({name: (line, "abi-macro") for name, (_, line) in TOKENS.items()})
    assert found == expected
    assert out.splitlines()[-1] == f"Found {len(expected)} violations (0 fixable with --fix)."


def test_a_spliced_token_is_shown_as_the_preprocessor_reads_it(project: Project) -> None:
    project.config(CONFIG)
    project.write("a.cpp", "int a;\nTORCH_\\\nLIBRARY(ops, m) {}\n")
    assert project.lines("a.cpp") == ["a.cpp:2:1: abi-macro `TORCH_LIBRARY` is forbidden"]
