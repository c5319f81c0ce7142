"""A `match` statement (vLLM 0.33.0 has several) is walked like any compound statement, never a crash."""

from __future__ import annotations

from conftest import Project


def test_imports_in_match_cases_are_seen(project: Project) -> None:
    project.config("version: 1\nrules:\n  - id: no-torch-cuda\n    forbid: [torch.cuda.synchronize]\n  - id: no-re\n    forbid: [re]\n")
    project.write(
        "m.py",
        """\
        import torch

        match torch.__version__:
            case "2":
                import re as regex_module
            case _:
                torch.cuda.synchronize()
        """,
    )
    code, out, err = project.run("check", "m.py")
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        "m.py:5:16: no-re `re` is forbidden",
        "m.py:7:9: no-torch-cuda `torch.cuda.synchronize` is forbidden",
        "Found 2 violations (0 fixable with --fix).",
    ]
