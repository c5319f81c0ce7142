"""`kind: import-time`: what importing an entry must never load, through the project's graph."""

from __future__ import annotations

import json

import pytest

from conftest import Project

RULE = """\
version: 1
rules:
  - id: light-import
    kind: import-time
    entry: [app]
    forbid: [cv2, torch._inductor.async_compile]
    message: "`import app` must stay light: {name} is loaded at import time"
"""


def light_app(project: Project, config: str = RULE) -> None:
    project.config(config)
    project.write("app/__init__.py", "from app import models\n")
    project.write("app/models.py", "import json\nfrom app.media import image\n")
    project.write("app/media/__init__.py", "")
    project.write("app/media/image.py", "def load():\n    import cv2\n    return cv2\n")
    project.write("app/tools.py", "import cv2\n")  # nothing `import app` runs imports it


def test_silent_when_the_forbidden_module_is_imported_lazily(project: Project) -> None:
    light_app(project)
    code, out, _ = project.run("check")
    assert (code, out) == (0, "All checks passed!\n")


def test_an_eager_import_reached_from_the_entry_is_reported_with_its_chain(project: Project) -> None:
    light_app(project)
    project.write("app/media/image.py", "import os\nimport cv2\n")
    assert project.lines("--no-cache") == project.lines() == [
        "app/media/image.py:2:8: light-import `import app` must stay light: cv2 is loaded at import time: "
        "app -> app.models -> app.media.image -> cv2"
    ]
    code, out, _ = project.run("check", "--format", "json")
    assert code == 1
    [finding] = json.loads(out)["diagnostics"]
    assert finding["chain"] == ["app", "app.models", "app.media.image", "cv2"]


@pytest.mark.parametrize("source", [
    "from torch._inductor import async_compile\n",
    "import torch._inductor.async_compile as ac\n",
    "import importlib\nimportlib.import_module('cv2')\n",
    "from importlib import import_module\nimport_module(name='cv2')\n",
    "__import__(name='cv2')\n",
    "import importlib\nimportlib.import_module(f'cv2')\n",
    "import importlib as il\nil.__import__('cv' '2')\n",
    "import builtins\nbuiltins.__import__(name=f'cv2')\n",
    "from builtins import __import__ as load\nload((\"\"\"cv2\"\"\"))\n",
    "try:\n    import cv2\nexcept ImportError:\n    cv2 = None\n",
    "import sys\nif sys.platform == 'linux':\n    import cv2\n",
    "from app.media.helpers import load_cv2\n\nREADY = load_cv2()\n",
])
def test_every_eager_form_is_found(project: Project, source: str) -> None:
    light_app(project)
    project.write("app/media/helpers.py", "def load_cv2():\n    import cv2\n    return cv2\n")
    project.write("app/media/image.py", source)
    [line] = project.lines()
    assert line.startswith("app/media/image.py:") and " light-import " in line and "app -> app.models -> app.media.image" in line


@pytest.mark.parametrize("source", [
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import cv2\n",
    "if __name__ == '__main__':\n    import cv2\n",
    "import torch\nimport torch._inductor\n",  # the parent package is not the module
    "def f():\n    from torch._inductor import async_compile\n",
])
def test_what_never_runs_at_import_time_is_allowed(project: Project, source: str) -> None:
    light_app(project)
    project.write("app/media/image.py", source)
    assert project.lines() == []


def test_platform_any_ignores_guards_and_rocm_judges_them(project: Project) -> None:
    guarded = RULE + "rocm_safety:\n  heavy_modules: [tilelang]\n  guards: [TYPE_CHECKING, is_cuda]\n"
    light_app(project, guarded)
    project.write("app/media/image.py", "from app.platform import is_cuda\nif is_cuda():\n    import cv2\n")
    project.write("app/platform.py", "def is_cuda():\n    return True\n")
    assert len(project.lines()) == 1  # platform: any: a guard keeps nothing off
    light_app(project, guarded.replace("    message:", "    platform: rocm\n    message:"))
    project.write("app/media/image.py", "from app.platform import is_cuda\nif is_cuda():\n    import cv2\n")
    assert project.lines() == []


def test_a_forbidden_project_module(project: Project) -> None:
    light_app(project, RULE.replace("forbid: [cv2, torch._inductor.async_compile]", "forbid: [app.media]"))
    project.write("app/media/image.py", "import cv2\nfrom app.media import other\n")
    project.write("app/media/other.py", "")
    # Reported where the project first imports it, not again inside it.
    assert project.lines() == [
        "app/models.py:2:6: light-import `import app` must stay light: app.media is loaded at import time: "
        "app -> app.models -> app.media"
    ]


def test_reported_only_where_files_applies_and_suppressed_at_the_site(project: Project) -> None:
    light_app(project, RULE + '    files: ["app/models.py"]\n')
    project.write("app/media/image.py", "import cv2\n")
    assert project.lines() == []
    light_app(project)
    project.write("app/media/image.py", "import cv2  # import-policy: ignore[light-import]\n")
    assert project.lines() == []


def test_the_hook_rule(project: Project) -> None:
    """The changed file is where the chain passes: it is blamed at its link."""
    light_app(project)
    project.write("app/media/image.py", "import cv2\n")
    assert project.lines("app/models.py") == [
        "app/models.py:2:1: light-import this import makes `app` reach `cv2` (app/media/image.py:1): "
        "app -> app.models -> app.media.image -> cv2"
    ]
    code, out, _ = project.run("check", "app/tools.py")
    assert (code, out) == (0, "All checks passed!\n")  # on no chain: never blamed


def test_why_rule_prints_its_chains(project: Project) -> None:
    light_app(project)
    project.write("app/media/image.py", "import cv2\n")
    code, out, _ = project.run("why", "cv2", "--rule", "light-import")
    assert code == 0
    assert out == (
        "app -> cv2 (3 links):\n"
        "  app/__init__.py:1: app -> app.models (from app import models)\n"
        "  app/models.py:2: app.models -> app.media.image (from app.media import image)\n"
        "  app/media/image.py:1: app.media.image -> cv2 (import cv2)\n"
    )
    code, _, err = project.run("why", "cv2", "--rule", "no-such-rule")
    assert code == 2 and "no-such-rule" in err


def test_rules_and_explain_show_the_kind(project: Project) -> None:
    light_app(project)
    code, out, _ = project.run("rules")
    assert code == 0 and "light-import" in out and "import-time" in out
    code, out, _ = project.run("explain", "light-import")
    assert code == 0
    assert "  kind:          import-time\n" in out
    assert "  entry:         app\n" in out
    assert "  forbid:        cv2, torch._inductor.async_compile\n" in out
    assert "  platform:      any" in out


@pytest.mark.parametrize("extra, message", [
    ("    entry: []\n", "entry must name at least one module"),
    ("    entry: ['not a module']\n", "entry must be a dotted module name"),
    ("    platform: cuda2\n", "import-policy.yaml:6: rule 'light': unknown platform 'cuda2'; platforms: any, rocm, cuda, cpu, xpu"),
])
def test_bad_configuration(project: Project, extra: str, message: str) -> None:
    config = "version: 1\nrules:\n  - id: light\n    kind: import-time\n    forbid: [cv2]\n" + extra
    if "entry" not in extra:
        config += "    entry: [app]\n"
    project.config(config)
    code, _, err = project.run("check")
    assert code == 2
    assert "import-policy.yaml:" in err and message in err


def test_an_entry_is_required(project: Project) -> None:
    project.config("version: 1\nrules:\n  - id: light\n    kind: import-time\n    forbid: [cv2]\n")
    code, _, err = project.run("check")
    assert code == 2 and "import-policy.yaml:3:" in err and "needs an entry list" in err


def test_an_entry_that_is_not_a_module_of_the_project_is_a_configuration_error(project: Project) -> None:
    light_app(project, RULE.replace("entry: [app]", "entry:\n      - app\n      - app.nowhere"))
    code, out, err = project.run("check")
    assert (code, out) == (2, "")
    assert "import-policy.yaml:7: rule 'light-import': entry 'app.nowhere' is not a module of the project" in err


def test_reported_where_the_rocm_pass_reports_nothing(project: Project) -> None:
    light_app(project, RULE + 'rocm_safety:\n  heavy_modules: [tilelang]\n  files: ["elsewhere/**"]\n')
    project.write("app/media/image.py", "import cv2\nimport tilelang\n")
    assert [line.split(" ")[1] for line in project.lines()] == ["light-import"]


def test_an_allow_in_that_keeps_a_finding_out_is_not_stale(project: Project) -> None:
    light_app(project, RULE + '    allow_in: ["app/media/image.py"]\n')
    project.write("app/media/image.py", "import cv2\n")
    code, out, err = project.run("check")
    assert (code, out) == (0, "All checks passed!\n")
    assert "exempts nothing" not in err
    project.write("app/media/image.py", "import json\n")
    code, out, err = project.run("check")
    assert "allow_in entry 'app/media/image.py' of rule 'light-import' exempts nothing" in err


@pytest.mark.parametrize(("setting", "lazy"), [
    ('target_version: "3.15"\n', True),
    ('target_version: "3.14"\n', False),
    ("", False),
])
@pytest.mark.parametrize("source", ["lazy import cv2\n", "__lazy_modules__ = ['cv2']\nimport cv2\n"])
def test_a_lazy_import_is_lazy_where_every_supported_python_runs_it_so(
    project: Project, setting: str, lazy: bool, source: str
) -> None:
    """As the ROCm pass judges it (a lazy import is no edge from `target_version` 3.15 on),
    with or without a `rocm_safety` section."""
    light_app(project, RULE + setting)
    project.write("app/media/image.py", source)
    lines = project.lines("--no-cache")
    assert lines == project.lines()
    if lazy:
        assert lines == []
    else:
        [line] = lines
        assert line.startswith("app/media/image.py:") and "cv2 is loaded at import time" in line


@pytest.mark.parametrize(("requires", "lazy"), [(">=3.15", True), (">=3.10", False)])
def test_requires_python_decides_when_no_target_version_is_given(project: Project, requires: str, lazy: bool) -> None:
    light_app(project)
    project.write("pyproject.toml", f'[project]\nname = "app"\nrequires-python = "{requires}"\n')
    project.write("app/media/image.py", "lazy import cv2\n")
    assert (project.lines("--no-cache") == []) is lazy


@pytest.mark.parametrize("platform", ["any", "rocm"])
def test_a_probe_the_policy_declares_loads_what_it_probes_on_any_platform(project: Project, platform: str) -> None:
    """`_has_module("cv2")` imports cv2 to see whether it is there, whichever platform runs it."""
    light_app(project, RULE.replace("    message:", f"    platform: {platform}\n    message:") + (
        "rocm_safety:\n  heavy_modules: [tilelang]\n  probes: {_has_module: null}\n  entry_modules: [app]\n"
    ))
    call = "HAS_CV2 = _has_module('cv2')"
    project.write("app/media/image.py", f"from app.util import _has_module\n{call}\n")
    project.write("app/util.py", "import importlib\ndef _has_module(name):\n    return importlib.import_module(name)\n")
    lines = project.lines("--select", "light-import")
    where = f"app/media/image.py:2:{call.index('_has_module') + 1}:"
    assert [line.split(" ")[:2] for line in lines] == [[where, "light-import"]], lines
