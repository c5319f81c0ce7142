"""A module an entry reaches that does not parse is a `syntax-error` finding, never a gap in the graph."""

from __future__ import annotations

from conftest import Project

POLICY = """\
version: 1
rocm_safety:
  heavy_modules: [tilelang]
  entry_modules: [vllm]
"""
BROKEN = "import tilelang\nx = (\n"


def _tree(project: Project) -> None:
    project.config(POLICY)
    project.write("vllm/__init__.py", "from vllm import bad\n")
    project.write("vllm/bad.py", BROKEN)


def test_a_reached_module_that_does_not_parse_is_reported(project: Project) -> None:
    _tree(project)
    code, out, _ = project.run("check", "--no-cache")
    lines = out.splitlines()
    assert code == 1, out
    assert [line.split(" ")[:2] for line in lines if "syntax-error" in line] == [["vllm/bad.py:2:5:", "syntax-error"]], out
    assert "All checks passed!" not in out


def test_reported_when_the_file_is_named(project: Project) -> None:
    _tree(project)
    code, out, _ = project.run("check", "--no-cache", "vllm/bad.py")
    assert code == 1 and "vllm/bad.py:2:5: syntax-error" in out, out


def test_reported_from_the_cache_too(project: Project) -> None:
    _tree(project)
    first = project.run("check")
    assert first[0] == 1 and "syntax-error" in first[1], first
    assert project.run("check") == first


def test_a_module_no_entry_reaches_is_not_parsed_for_the_pass(project: Project) -> None:
    project.config(POLICY)
    project.write("vllm/__init__.py", "")
    project.write("vllm/bad.py", "x = (\n")  # names nothing the pass follows: never parsed
    code, out, _ = project.run("check", "--no-cache")
    assert code == 0 and "All checks passed!" in out, out


def test_reported_on_a_warm_run_after_another_file_changed(project: Project) -> None:
    _tree(project)
    project.write("vllm/other.py", "x = 1\n")
    assert "syntax-error" in project.run("check")[1]
    project.write("vllm/other.py", "x = 2\n")  # the whole-tree result is stale; the module graph is not
    code, out, _ = project.run("check")
    assert code == 1 and "vllm/bad.py:2:5: syntax-error" in out, out
    code, out, _ = project.run("check", "vllm/__init__.py", "vllm/bad.py")
    assert code == 1 and "vllm/bad.py:2:5: syntax-error" in out, out
