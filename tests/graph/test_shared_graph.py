"""Many graph rules, one graph: `kind: import-time` rules that differ only in what they forbid
share the eager graph, its reach and every file read; each reads only its own sites."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conftest import Project
from import_policy.facts.records.model import CallFact
from import_policy.graph import derive
from import_policy.graph.reach import Project as Graph

NAMES = ("torch", "cv2", "yaml", "scipy", "pandas", "sympy")

FILES = {
    "app/__init__.py": "from app import models\nfrom app.loader import load_all\nREADY = load_all()\n",
    "app/models.py": "import json\nimport torch\nfrom app.media import image\n",
    "app/media/__init__.py": "",
    "app/media/image.py": "try:\n    import cv2\nexcept ImportError:\n    cv2 = None\nimport yaml.constructor\n",
    "app/loader.py": "def load_all():\n    import scipy\n    import pandas\n    return scipy, pandas\n",
    "app/tools.py": "import sympy\n",  # nothing `import app` runs imports it
}


def one_rule() -> str:
    return f"version: 1\nrules:\n  - id: heavy\n    kind: import-time\n    entry: [app]\n    forbid: [{', '.join(NAMES)}]\n"


def each_rule(names: tuple[str, ...] = NAMES) -> str:
    rules = "".join(f"  - id: no-{name.replace('.', '-')}\n    kind: import-time\n    entry: [app]\n    forbid: [{name}]\n" for name in names)
    return f"version: 1\nrules:\n{rules}"


class Counts:
    def __init__(self) -> None:
        self.graphs = 0
        self.parsed: list[str] = []


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counts]:
    found = Counts()
    made = Graph.__init__
    parse = derive._Loader._parse

    def counting_init(self: Graph, *args: object, **kwargs: object) -> None:
        found.graphs += 1
        made(self, *args, **kwargs)  # type: ignore[arg-type]

    def counting_parse(self: derive._Loader, path: str, *args: object) -> object:
        found.parsed.append(path)
        return parse(self, path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Graph, "__init__", counting_init)
    monkeypatch.setattr(derive._Loader, "_parse", counting_parse)
    yield found


def test_n_rules_derive_one_graph_and_read_each_file_once(project: Project, counts: Counts) -> None:
    for relative, text in FILES.items():
        project.write(relative, text)
    project.config(one_rule())
    one = project.lines("--no-cache")
    one_parsed = sorted(counts.parsed)
    assert counts.graphs == 1 and len(one) == 4  # a call loading scipy and pandas is one finding; sympy: unreached
    alone: list[str] = []
    for name in NAMES:  # each rule on its own: what the rules together must answer
        project.config(each_rule((name,)))
        alone.extend(project.lines("--no-cache"))
    counts.graphs, counts.parsed = 0, []
    project.config(each_rule())
    together = project.lines("--no-cache")
    assert counts.graphs == 1, "each rule derived a graph of its own"
    assert sorted(counts.parsed) == one_parsed and len(set(one_parsed)) == len(one_parsed)
    assert sorted(together) == sorted(alone) and len(together) == 5


def test_n_rules_store_one_graph_and_a_warm_run_derives_nothing(project: Project, counts: Counts) -> None:
    for relative, text in FILES.items():
        project.write(relative, text)
    project.config(each_rule())
    cold = project.lines()
    assert counts.graphs == 1 and len(cold) == 5
    counts.graphs, counts.parsed = 0, []
    assert project.lines() == cold
    assert (counts.graphs, counts.parsed) == (0, [])
    # A rule added later whose names change no prefilter finds its sites in the graph the
    # others stored: its reach is not derived again, and no file is read again.
    project.config(each_rule((*NAMES, "yaml.constructor")))
    warm = project.lines()
    assert len(warm) == 6 and (counts.graphs, counts.parsed) == (1, [])


def test_rules_on_other_platforms_each_have_their_graph(project: Project, counts: Counts) -> None:
    for relative, text in FILES.items():
        project.write(relative, text)
    config = each_rule(("torch", "cv2"))
    project.config(config + "  - id: cpu-torch\n    kind: import-time\n    entry: [app]\n    forbid: [torch]\n"
                   "    platform: cpu\n")
    project.lines("--no-cache")
    assert counts.graphs == 2


CALLING = {
    **FILES,
    "app/__init__.py": FILES["app/__init__.py"] + "from app.probe import has\nfrom app.loader import check\nHAS = has('torch.fx')\nCHECKED = check()\n",
    "app/probe.py": "def has(name):\n    import importlib.util\n    return importlib.util.find_spec(name)\n",
    "app/loader.py": FILES["app/loader.py"] + "\ndef check():\n    import sympy\n    return load_all()\n",
}


def test_n_rules_walk_the_import_time_calls_once(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the calls run at import time load is walked once for all the rules: as many calls
    and functions walked with six rules, one per name, as with one rule for them all."""
    from import_policy.graph import witness

    walked: list[object] = []
    calls: list[str] = []
    walk = witness.Calls._walk
    call = witness.Calls.call

    def counting_walk(self: witness.Calls, target: object, *args: object) -> object:
        walked.append(target)
        return walk(self, target, *args)  # type: ignore[arg-type]

    def counting_call(self: witness.Calls, fact: CallFact, *args: object) -> object:
        calls.append(fact.callee)
        return call(self, fact, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(witness.Calls, "_walk", counting_walk)
    monkeypatch.setattr(witness.Calls, "call", counting_call)
    for relative, text in CALLING.items():
        project.write(relative, text)
    project.config(one_rule())
    one = project.lines("--no-cache")
    one_walked, one_calls = len(walked), len(calls)
    assert one_walked == 3 and len(one) == 6, (walked, one)  # load_all, check, has: each walked once
    walked.clear()
    calls.clear()
    project.config(each_rule())
    together = project.lines("--no-cache")
    assert (len(walked), len(calls)) == (one_walked, one_calls), "each rule walked the calls again"
    assert len(together) == 9, together
