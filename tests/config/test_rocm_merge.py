"""`rocm_safety` under `extends`: maps (`heavy_modules`, `probes`) merge name by name, with
`name: false` removing one; lists replace; `rules` and `explain` say where each name came from."""

from __future__ import annotations

from conftest import Project

PRESET_HEAVY = ("flashinfer", "flash_attn", "xformers", "tilelang")


def reached(project: Project) -> list[str]:
    return [line.split(" imports `")[1].split("`")[0] for line in project.lines("--no-cache") if "heavy-import-reachable" in line]


def test_adding_a_heavy_module_keeps_every_preset_module_heavy(project: Project) -> None:
    project.config("extends: [rocm-safety]\nrocm_safety:\n  heavy_modules:\n    dropout_layer_norm: CUDA-only\n")
    project.write("pkg/__init__.py", "import dropout_layer_norm\nimport flashinfer\nimport flash_attn\nimport xformers\nimport tilelang\n")
    assert reached(project) == ["dropout_layer_norm", *PRESET_HEAVY]


def test_the_list_form_adds_too(project: Project) -> None:
    project.config("extends: [rocm-safety]\nrocm_safety:\n  heavy_modules: [dropout_layer_norm]\n")
    project.write("pkg/__init__.py", "import dropout_layer_norm\nimport flashinfer\n")
    assert reached(project) == ["dropout_layer_norm", "flashinfer"]


def test_false_removes_a_name(project: Project) -> None:
    project.config("extends: [rocm-safety]\nrocm_safety:\n  heavy_modules:\n    flash_attn: false\n")
    project.write("pkg/__init__.py", "import flash_attn\nimport flashinfer\n")
    assert reached(project) == ["flashinfer"]


def test_a_later_file_brings_a_removed_name_back(project: Project) -> None:
    project.write("base.yaml", "extends: [rocm-safety]\nrocm_safety:\n  heavy_modules: {flash_attn: false}\n")
    project.config("extends: [base.yaml]\nrocm_safety:\n  heavy_modules: {flash_attn: ours is CUDA-only}\n")
    project.write("pkg/__init__.py", "import flash_attn\n")
    assert project.lines("--no-cache") == [
        "pkg/__init__.py:1:8: heavy-import-reachable importing `pkg` imports `flash_attn`: pkg -> flash_attn "
        "(flash_attn: ours is CUDA-only)"
    ]


def test_probes_merge_name_by_name(project: Project) -> None:
    project.config("extends: [rocm-safety]\nrocm_safety:\n  probes: {is_installed: null}\n")
    project.write("pkg/a.py", "def f():\n    _has_module('aiter')\n    is_installed('aiter')\n")
    rules = [line.split(": ")[0] + " " + line.split(" ")[1] for line in project.lines("--no-cache") if line.startswith("pkg/")]
    assert rules == ["pkg/a.py:2:5 trial-import-probe", "pkg/a.py:3:5 trial-import-probe"]


def test_lists_replace(project: Project) -> None:
    # guards: the preset's is_cuda is no longer a guard, so the body counts as ROCm code.
    project.config("extends: [rocm-safety]\nrocm_safety:\n  guards: [is_xpu]\n")
    project.write("pkg/__init__.py", "if is_cuda():\n    import flashinfer\nif is_xpu():\n    import xformers\n")
    assert reached(project) == ["flashinfer"]


def test_explain_shows_the_merged_settings_and_where_each_name_came_from(project: Project) -> None:
    project.config(
        "extends: [rocm-safety]\nrocm_safety:\n  heavy_modules:\n    dropout_layer_norm: CUDA-only\n"
        "    flash_attn: false\n  entry_modules: [pkg]\n"
    )
    project.write("pkg/__init__.py", "")
    code, out, _ = project.run("explain", "heavy-import-reachable")
    assert code == 0
    lines = out.splitlines()
    assert "    dropout_layer_norm  [import-policy.yaml:4]  CUDA-only" in lines
    assert any(line.startswith("    flashinfer  [preset rocm-safety:") for line in lines)
    assert not any(line.startswith("    flash_attn  [") for line in lines)
    assert lines[lines.index("  removed:") + 1] == "    flash_attn (heavy_modules)  [import-policy.yaml:5]"
    assert "  entry modules: pkg  [import-policy.yaml:6]" in lines
    assert any(line.startswith("  guards:        TYPE_CHECKING, is_cuda") and "[preset rocm-safety:" in line for line in lines)


def test_rules_prints_the_merged_pass_settings(project: Project) -> None:
    project.config("extends: [rocm-safety]\nrocm_safety:\n  heavy_modules: {dropout_layer_norm: CUDA-only}\n")
    project.write("pkg/__init__.py", "")
    code, out, _ = project.run("rules")
    assert code == 0
    tail = out.split("\nrocm_safety (merged):\n")[1].splitlines()
    assert tail[0] == "  declared in:   import-policy.yaml:2"
    assert "    dropout_layer_norm  [import-policy.yaml:3]  CUDA-only" in tail
    assert any(line.startswith("    xformers  [preset rocm-safety:") for line in tail)
