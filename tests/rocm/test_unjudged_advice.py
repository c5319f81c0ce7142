"""A finding under a test the pass could not judge says what would settle it: `guards` or
`rocm` for a call, `values` for a name or a subscript; a `values` key the code calls is
warned of, since a value never settles a call."""

from __future__ import annotations

import pytest

from conftest import Project
from import_policy.config.model import Origin, RocmSafety
from import_policy.rocm.advice import unjudged

POLICY = """\
version: 1
extends: [rocm-safety]
rocm_safety:
  entry_modules: [app]
"""
APP = "from fa_utils import is_flash_attn_2_available\n\nif is_flash_attn_2_available():\n    import flash_attn\n"
ROCM = RocmSafety(
    heavy_modules=(), probes=(), guards=("is_cuda", "torch.version.cuda"), files=(), entry_modules=(),
    origin=Origin("import-policy.yaml", 3), rocm=("is_hip",), values=(("is_fa", False), ("DEVICE", "hip")),
)
SETTLE_CALL = "add `{name}` to rocm_safety.guards (false on ROCm) or rocm_safety.rocm (true on ROCm)"


@pytest.mark.parametrize("texts, advice", [
    (("on_gfx1250()",), SETTLE_CALL.format(name="on_gfx1250")),
    (("not current_platform.is_blackwell()",), SETTLE_CALL.format(name="is_blackwell")),
    (("not HAS_AITER_MHC",), "state it in rocm_safety.values"),
    (('env["has_te"]', "MODE == 'x'"), "state them in rocm_safety.values"),
    (("is_cuda() or x",), "state it in rocm_safety.values"),  # is_cuda() is judged: only x is not
    (("a() and env['x']", "MODE == 'x'"),
     SETTLE_CALL.format(name="a") + "; state `env['x']`, `MODE == 'x'` in rocm_safety.values"),
    (("(has_a()\n    or FLAG)",), SETTLE_CALL.format(name="has_a") + "; state `FLAG` in rocm_safety.values"),
    (("get_device() == 'cuda'",), "no setting states what `get_device()` returns (rocm_safety.values settles names and subscripts)"),
    (("is_fa()",), SETTLE_CALL.format(name="is_fa") + " (rocm_safety.values names `is_fa`, which settles a name or a subscript, never a call)"),
])
def test_each_part_of_a_test_is_sent_where_it_can_be_settled(texts: tuple[str, ...], advice: str) -> None:
    names = ", ".join(f"`{text}`" for text in texts)
    assert unjudged(texts, ROCM) == f"; under {names}, which the pass cannot judge on ROCm: {advice}"


def test_a_finding_under_a_call_names_guards_and_rocm(project: Project) -> None:
    project.config(POLICY)
    project.write("app/__init__.py", APP)
    [line] = project.lines("--no-cache")
    assert line.endswith(
        "; under `is_flash_attn_2_available()`, which the pass cannot judge on ROCm: add `is_flash_attn_2_available` "
        "to rocm_safety.guards (false on ROCm) or rocm_safety.rocm (true on ROCm)"
    )
    # the advice settles it
    project.config(POLICY + "  extend_guards: [is_flash_attn_2_available]\n")
    assert project.lines("--no-cache") == []


def test_a_values_key_the_code_calls_is_warned_of(project: Project) -> None:
    project.config(POLICY + "  values:\n    is_flash_attn_2_available: false\n")
    project.write("app/__init__.py", APP)
    for argv in (("--no-cache",), (), ()):  # cold, then warm twice (the run cache answers the last)
        code, out, err = project.run("check", *argv)
        assert code == 1
        assert "(rocm_safety.values names `is_flash_attn_2_available`, which settles a name or a subscript, never a call)" in out
        assert (
            "import-policy: import-policy.yaml:6: warning: rocm_safety.values key 'is_flash_attn_2_available' is called by "
            "the code the pass judges (app/__init__.py:4), and a value settles a name or a subscript, never a call: "
            "name it in rocm_safety.guards (false on ROCm) or rocm_safety.rocm (true on ROCm) instead"
        ) in err.splitlines(), err


def test_a_values_key_read_as_a_name_is_not_warned_of(project: Project) -> None:
    project.config(POLICY + "  values:\n    FA_AVAILABLE: false\n")
    project.write("app/__init__.py", "from fa_utils import FA_AVAILABLE\n\nif FA_AVAILABLE:\n    import flash_attn\n")
    code, out, err = project.run("check")
    assert (code, out, err) == (0, "All checks passed!\n", "")


SCAN_POLICY = POLICY + "  values:\n    on_gfx1250: true\n"


def test_a_values_key_the_code_only_calls_is_warned_of_without_a_finding(project: Project) -> None:
    project.config(SCAN_POLICY)
    project.write("app/__init__.py", "from hw import on_gfx1250\n\nif on_gfx1250():\n    import json\n")
    for argv in (("--no-cache",), (), ()):  # cold, then warm twice (the run cache answers the last)
        code, out, err = project.run("check", *argv)
        assert (code, out) == (0, "All checks passed!\n"), out
        assert err.splitlines() == [
            "import-policy: import-policy.yaml:6: warning: rocm_safety.values key 'on_gfx1250' is only ever called by "
            "the code the pass read (app/__init__.py:3), and a value settles a name or a subscript, never a call: "
            "name it in rocm_safety.rocm (it is true on ROCm) instead"
        ], err


def test_a_values_key_also_read_as_a_name_is_not_warned_of(project: Project) -> None:
    project.config(SCAN_POLICY)
    project.write(
        "app/__init__.py",
        "from hw import on_gfx1250\n\nif on_gfx1250():\n    import json\nif on_gfx1250:\n    import csv\n",
    )
    code, out, err = project.run("check", "--no-cache")
    assert (code, out, err) == (0, "All checks passed!\n", "")


@pytest.mark.slow
def test_a_values_key_is_warned_of_once_its_last_read_as_a_name_goes_warm_and_cold_alike(project: Project) -> None:
    project.config(SCAN_POLICY)
    project.write("app/__init__.py", "from hw import on_gfx1250\nfrom app import other\n\nif on_gfx1250():\n    import json\n")
    reads = "from hw import on_gfx1250\n\nif on_gfx1250:\n    import csv\n"
    project.write("app/other.py", reads)
    warning = (
        "import-policy: import-policy.yaml:6: warning: rocm_safety.values key 'on_gfx1250' is only ever called by "
        "the code the pass read (app/__init__.py:4), and a value settles a name or a subscript, never a call: "
        "name it in rocm_safety.rocm (it is true on ROCm) instead"
    )
    for text, expected in ((reads, []), ("import csv\n", [warning]), (reads, [])):
        project.write("app/other.py", text)
        for argv in ((), (), ("--no-cache",)):  # warm from the graph kept, then the run cache, then cold
            code, out, err = project.run("check", *argv)
            assert (code, out, err.splitlines()) == (0, "All checks passed!\n", expected), (text, argv)
