"""Many rules, one walk of the import-time calls: each rule answers what it answers alone.

What a call loads is walked once for every rule sharing a graph and its probes
(`graph.witness.Calls`); a rule differs from another in which modules are heavy, in the name
it reports for `from torch import _dynamo`, in where a probe of a module heavy for it stops its
walk, and so in what its memo holds when a recursion is cut. The files below hold each of
those; every rule, asked with the others, must answer byte for byte what it answers alone.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from conftest import Project
from import_policy.facts.cpython.from_ast import graph_facts
from import_policy.graph.platform import Platform
from import_policy.graph.question import Question
from import_policy.graph.reach import Project as Graph
from import_policy.patterns import DottedPattern

FILES = {
    "app/__init__.py": (
        "import os\nimport importlib.util\nfrom torch import _dynamo\nfrom app import models\n"
        "from app.loader import load_all, check, ping, pong\nfrom app.util import _has_module\n"
        "READY = load_all()\n"
        "HAS_FX = _has_module('torch.fx')\n"  # a probe: stops the walk for torch and torch.fx only
        "SPEC = importlib.util.find_spec('scipy.linalg')\n"  # imports scipy
        "FOUND = check('torch.onnx')\n"  # find_spec through a parameter: imports torch
        "REC = ping(3)\n"
        "ALSO = pong(1)\n"  # what it loads depends on which of ping and pong was walked first
        "if os.environ.get('APP_FULL'):\n    from app.guarded import setup\n    setup()\n"
        "from app.deep import d0\nDEEP = d0()\n"  # torch at d34: past MAX_CALL_DEPTH from here
    ),
    "app/models.py": "import json\nimport torch\nfrom app.media import image\n\n@torch.no_grad()\ndef f():\n    pass\n",
    "app/media/__init__.py": "",
    "app/media/image.py": "try:\n    import cv2\nexcept ImportError:\n    cv2 = None\nimport yaml.constructor\n",
    "app/loader.py": (
        "def load_all():\n    import scipy\n    from torch import _inductor\n    import pandas\n    return helper()\n\n"
        "def helper():\n    import torch._dynamo\n    import yaml\n    return None\n\n"
        "def check(name):\n    import importlib.util\n    return importlib.util.find_spec(name)\n\n"
        "def ping(n):\n    import sympy\n    return pong(n)\n\n"
        "def pong(n):\n    from torch import fx\n    return ping(n)\n"
    ),
    "app/util.py": (
        "from app.loader import pong\n\n"
        "from app.deep import d3\n\n"
        "def _has_module(name):\n    import importlib.util\n    pong(0)\n    d3()\n"
        "    return importlib.util.find_spec(name) is not None\n"
    ),
    "app/guarded.py": (
        "import os\n\ndef setup():\n    if os.environ.get('X'):\n        import pandas\n    import PIL\n"
        "    from app.loader import helper\n    helper()\n"
    ),
}
# A chain of calls deeper than MAX_CALL_DEPTH: d34 is walked from `_has_module`'s d3() (by the
# rules the probe does not stop), never from `DEEP = d0()`: `DEEP` loads yaml (d3 walked before,
# from the probe), not torch (whose rule the probe stops: the chain cut at d33).
FILES["app/deep.py"] = "".join(
    f"def d{n}():\n" + ("    import torch.utils\n    import yaml.composer\n" if n == 34 else "") + (f"    d{n + 1}()\n" if n < 40 else "    pass\n")
    for n in range(41)
)
NAMES = (
    "torch", "torch._dynamo", "torch._inductor", "torch.fx", "torch.onnx", "scipy", "pandas", "sympy", "cv2", "yaml",
    "PIL", "numpy",
)
PROBES = "rocm_safety:\n  heavy_modules: [tilelang]\n  probes: {_has_module: null}\n  entry_modules: [app]\n"


def rule(name: str, platform: str) -> str:
    return (f"  - id: no-{name.replace('.', '-').replace('_', '-').lower()}\n    kind: import-time\n"
            f"    entry: [app]\n    forbid: [{name}]\n    platform: {platform}\n")


def findings(project: Project, names: tuple[str, ...], platform: str) -> dict[str, list[str]]:
    """Each rule's findings, as the JSON report gives them, by rule."""
    project.config("version: 1\nrules:\n" + "".join(rule(name, platform) for name in names) + PROBES)
    _, out, _ = project.run("check", "--no-cache", "--format", "json", "--select", ",".join(
        f"no-{name.replace('.', '-').replace('_', '-').lower()}" for name in names
    ))
    found: dict[str, list[str]] = {}
    for finding in json.loads(out)["diagnostics"]:
        found.setdefault(finding["rule"], []).append(json.dumps(finding, sort_keys=True))
    return found


@pytest.mark.parametrize("platform", ["any", "rocm"])
def test_each_rule_answers_with_the_others_what_it_answers_alone(project: Project, platform: str) -> None:
    for relative, text in FILES.items():
        project.write(relative, text)
    alone: dict[str, list[str]] = {}
    for name in NAMES:
        alone.update(findings(project, (name,), platform))
    together = findings(project, NAMES, platform)
    assert together == alone
    # The cases are there: the overlapping names differ, the cycle's order shows.
    assert len(alone) >= 10 and any("torch._dynamo" in text for text in alone["no-torch--dynamo"])
    rec = [text for text in alone["no-torch"] if '"line": 11' in text]
    assert rec and "ping()" in rec[0], "`REC = ping(3)` loads torch for the torch rule (walked before pong)"
    deep = [rule for rule, texts in alone.items() if any('"line": 17' in text for text in texts)]
    assert deep == ["no-yaml"], deep


def facts() -> list[object]:
    return [
        graph_facts(text.encode(), path, path[:-3].replace("/", ".").removesuffix(".__init__"), path.endswith("__init__.py"))
        for path, text in FILES.items()
    ]


def question(name: str, platform: Platform | None) -> Question:
    return Question(
        heavy=(DottedPattern.compile(name),), probes=(("_has_module", None),), platform=platform, entries=("app",),
    )


PLATFORMS = (None, Platform("cpu", guards=("is_cuda",)), Platform("rocm", true=("is_rocm",)))


@given(
    names=st.lists(st.sampled_from(NAMES), min_size=1, max_size=len(NAMES), unique=True),
    order=st.permutations(sorted(FILES)),
    platform=st.sampled_from(PLATFORMS),
)
def test_sites_of_many_questions_are_each_questions_sites_alone(
    names: list[str], order: list[str], platform: Platform | None,
) -> None:
    """Every heavy site (its module, call steps, `also`, unjudged tests), for any set of rules
    and any order the files are asked in, is the one the rule finds alone asking in that order."""
    files = facts()
    questions = [question(name, platform) for name in names]
    together = Graph.from_facts(questions[0], files)  # type: ignore[arg-type]
    alone = [Graph.from_facts(asked, files) for asked in questions]  # type: ignore[arg-type]
    for path in order:
        assert together.sites_for(path, questions) == [graph.sites(path) for graph in alone], path
