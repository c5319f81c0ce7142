"""The ROCm-safety pass through the CLI: the vLLM #51151 chain in miniature, and each rule's flag/allow cases."""

from __future__ import annotations

import json
import re

import pytest

from conftest import Project, snapshot

POLICY = """\
version: 1
rocm_safety:
  heavy_modules: [tilelang, aiter, triton]
  probes: {_has_module: _has_module_spec}
  guards: [TYPE_CHECKING, is_cuda]
  entry_modules: [vllm, vllm.quant]
"""

IMPORT_UTILS = """\
import importlib


def _has_module(name):
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def has_tilelang():
    return _has_module("tilelang")
"""

MHC = """\
from vllm.utils.import_utils import has_tilelang


def _has_tilelang_mhc():
    return has_tilelang()


HAS_TILELANG_MHC = _has_tilelang_mhc()
"""

CHAIN = ["vllm.quant", "vllm.quant.dsv4", "vllm.quant.dsv4.dspark", "vllm.layers.mhc", "tilelang"]
EAGER_LINE = (
    "vllm/layers/mhc.py:8:20: eager-heavy-import `_has_tilelang_mhc()` runs when this module is imported and "
    'imports `tilelang` (_has_tilelang_mhc() -> has_tilelang() -> _has_module("tilelang"))'
)
REACHABLE_LINE = (
    "vllm/layers/mhc.py:8:20: heavy-import-reachable importing `vllm.quant` calls "
    '`_has_tilelang_mhc() -> has_tilelang() -> _has_module("tilelang")`, which imports `tilelang`: '
    "vllm.quant -> vllm.quant.dsv4 -> vllm.quant.dsv4.dspark -> vllm.layers.mhc -> tilelang"
)
PROBE_LINE = (
    'vllm/utils/import_utils.py:13:12: trial-import-probe `_has_module("tilelang")` imports `tilelang` just to see '
    "whether it is installed; use `_has_module_spec`, which only looks for the module"
)


def findings(project: Project, *argv: str) -> list[str]:
    """Diagnostic lines only (the summary and the unsafe-fix note dropped)."""
    return [line for line in project.lines(*argv) if not line.startswith(("No fixes available", "("))]


def chain_51151(project: Project, dspark: str = "from vllm.layers import mhc\n\n\nclass Spark:\n    pass\n") -> None:
    """vllm/quant/__init__ -> dsv4/__init__ -> dspark -> mhc, which calls has_tilelang() at import time."""
    project.config(POLICY)
    project.write("vllm/__init__.py", "")
    project.write("vllm/quant/__init__.py", "from vllm.quant import dsv4\n")
    project.write("vllm/quant/dsv4/__init__.py", "from .dspark import Spark\n")
    project.write("vllm/quant/dsv4/dspark.py", dspark)
    project.write("vllm/layers/__init__.py", "")
    project.write("vllm/layers/mhc.py", MHC)
    project.write("vllm/utils/__init__.py", "")
    project.write("vllm/utils/import_utils.py", IMPORT_UTILS)


def test_51151_chain_is_reported_at_the_import_time_call(project: Project) -> None:
    chain_51151(project)
    assert findings(project, ) == [REACHABLE_LINE, PROBE_LINE]
    # eager-heavy-import is opt-in, and never reports a site heavy-import-reachable reports
    assert findings(project, "--select", "eager-heavy-import") == [EAGER_LINE]
    assert findings(project, "--select", "eager-heavy-import,heavy-import-reachable") == [REACHABLE_LINE]


def test_51151_chain_in_json(project: Project) -> None:
    chain_51151(project)
    code, out, _ = project.run("check", "--format", "json", "--select", "heavy-import-reachable")
    assert code == 1
    [finding] = json.loads(out)["diagnostics"]
    assert finding["chain"] == CHAIN
    assert (finding["path"], finding["line"], finding["column"]) == ("vllm/layers/mhc.py", 8, 20)


def test_graph_covers_the_project_when_one_file_is_passed(project: Project) -> None:
    chain_51151(project)
    assert findings(project, "vllm/layers/mhc.py") == [REACHABLE_LINE]
    # A file on the chain is blamed at its link (the hook rule); one on no chain never is.
    assert findings(project, "vllm/quant/dsv4/dspark.py") == [
        "vllm/quant/dsv4/dspark.py:1:1: heavy-import-reachable this import makes `vllm.quant` reach `tilelang` "
        f"(vllm/layers/mhc.py:8): {' -> '.join(CHAIN)}"
    ]
    assert findings(project, "vllm/utils/__init__.py") == []


def test_51151_chain_cut_by_a_lazy_import(project: Project) -> None:
    chain_51151(project, dspark="def build():\n    from vllm.layers import mhc\n    return mhc\n")
    assert findings(project, "--select", "heavy-import-reachable") == []
    code, out, _ = project.run("why", "tilelang")
    assert code == 0
    assert out == (
        "vllm: no eager import chain to tilelang\n"
        "vllm.quant: no eager import chain to tilelang\n"
        "No eager import chain from the entry modules to tilelang.\n"
    )


def test_rules_are_selectable_and_ignorable(project: Project) -> None:
    chain_51151(project)
    assert findings(project, "--select", "trial-import-probe") == [PROBE_LINE]
    assert findings(project, "--ignore", "trial-import-probe") == [REACHABLE_LINE]


def test_suppression_on_the_heavy_site(project: Project) -> None:
    chain_51151(project)
    project.write("vllm/layers/mhc.py", MHC.replace("_has_tilelang_mhc()\n", "_has_tilelang_mhc()  # import-policy: ignore[heavy-import-reachable]\n"))
    assert findings(project, "vllm/layers/mhc.py") == []


# --- why ----------------------------------------------------------------------


def test_why_text(project: Project) -> None:
    chain_51151(project)
    code, out, _ = project.run("why", "tilelang")
    assert code == 0
    assert out == (
        "vllm: no eager import chain to tilelang\n"
        "vllm.quant -> tilelang (4 links):\n"
        "  vllm/quant/__init__.py:1: vllm.quant -> vllm.quant.dsv4 (from vllm.quant import dsv4)\n"
        "  vllm/quant/dsv4/__init__.py:1: vllm.quant.dsv4 -> vllm.quant.dsv4.dspark (from vllm.quant.dsv4.dspark import Spark)\n"
        "  vllm/quant/dsv4/dspark.py:1: vllm.quant.dsv4.dspark -> vllm.layers.mhc (from vllm.layers import mhc)\n"
        '  vllm/layers/mhc.py:8: vllm.layers.mhc -> tilelang (calls _has_tilelang_mhc() -> has_tilelang() -> _has_module("tilelang"))\n'
    )


def test_why_paths_are_relative_to_the_current_folder(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    chain_51151(project)
    monkeypatch.chdir(project.root / "vllm")
    _, out, _ = project.run("why", "vllm.layers.mhc")
    assert out.splitlines()[2:] == [
        "  quant/__init__.py:1: vllm.quant -> vllm.quant.dsv4 (from vllm.quant import dsv4)",
        "  quant/dsv4/__init__.py:1: vllm.quant.dsv4 -> vllm.quant.dsv4.dspark (from vllm.quant.dsv4.dspark import Spark)",
        "  quant/dsv4/dspark.py:1: vllm.quant.dsv4.dspark -> vllm.layers.mhc (from vllm.layers import mhc)",
    ]


def test_why_json(project: Project) -> None:
    chain_51151(project)
    code, out, _ = project.run("why", "tilelang", "--format", "json")
    assert code == 0
    document = json.loads(out)
    assert document["module"] == "tilelang"
    unreached, reached = document["chains"]
    assert unreached == {"entry": "vllm", "chain": None, "links": []}
    assert reached["chain"] == CHAIN
    assert reached["links"][-1] == {
        "from": "vllm.layers.mhc", "to": "tilelang", "path": "vllm/layers/mhc.py", "line": 8, "kind": "call",
        "detail": '_has_tilelang_mhc() -> has_tilelang() -> _has_module("tilelang")', "requires": [],
    }


def _expected_links() -> list[tuple[str, str, str]]:
    """The chain as the files written say it: each module imports the next on its first line,
    and `mhc` calls into tilelang on the line binding HAS_TILELANG_MHC."""
    call = 1 + MHC.splitlines().index("HAS_TILELANG_MHC = _has_tilelang_mhc()")
    where = ["vllm/quant/__init__.py:1", "vllm/quant/dsv4/__init__.py:1", "vllm/quant/dsv4/dspark.py:1",
             f"vllm/layers/mhc.py:{call}"]
    return [(CHAIN[i], CHAIN[i + 1], where[i]) for i in range(len(where))]


def test_why_mermaid(project: Project) -> None:
    chain_51151(project)
    _, out, _ = project.run("why", "tilelang", "--format", "mermaid")
    lines = out.splitlines()
    assert lines[0] == "flowchart LR"
    nodes = dict(re.findall(r'^  (n\d+)\["([^"]*)"\]$', out, re.M))
    edges = [(nodes[a], nodes[b], label) for a, label, b in re.findall(r'^  (n\d+) -->\|"([^"]*)"\| (n\d+)$', out, re.M)]
    styled = [nodes[n] for n in re.findall(r"^  style (n\d+) stroke:#d33", out, re.M)]
    assert sorted(nodes.values()) == sorted(CHAIN) and edges == _expected_links() and styled == ["tilelang"]
    assert len(lines) == 1 + len(nodes) + len(edges) + len(styled)  # nothing else


def test_why_dot(project: Project) -> None:
    chain_51151(project)
    _, out, _ = project.run("why", "tilelang", "--format", "dot")
    lines = out.splitlines()
    assert lines[0] == "digraph why {" and lines[-1] == "}"
    nodes = dict(re.findall(r'^  "([^"]*)" \[label="([^"]*)"(?:, color=red)?\];$', out, re.M))
    red = re.findall(r'^  "([^"]*)" \[label="[^"]*", color=red\];$', out, re.M)
    edges = re.findall(r'^  "([^"]*)" -> "([^"]*)" \[label="([^"]*)"\];$', out, re.M)
    assert nodes == {module: module for module in CHAIN} and red == ["tilelang"]
    assert edges == _expected_links()
    assert len(lines) == 4 + len(nodes) + len(edges)  # the header, rankdir, node shape, the end


def test_why_entry_parent_packages_run_first(project: Project) -> None:
    project.config(POLICY.replace("[vllm, vllm.quant]", "[vllm.quant]"))
    project.write("vllm/__init__.py", "import aiter\n")
    project.write("vllm/quant/__init__.py", "")
    _, out, _ = project.run("why", "aiter")
    assert out == (
        "vllm.quant -> aiter (2 links):\n"
        "  vllm/__init__.py:1: vllm.quant -> vllm (runs its parent package)\n"
        "  vllm/__init__.py:1: vllm -> aiter (import aiter)\n"
    )


def test_why_without_entry_modules_is_a_usage_error(project: Project) -> None:
    project.config("version: 1\nrocm_safety:\n  heavy_modules: [tilelang]\n")
    code, out, err = project.run("why", "tilelang")
    assert code == 2
    assert out == ""
    # A configuration error, as for check: where the pass looked, and what to do about it.
    assert err == (
        "import-policy: import-policy.yaml:2: the ROCm pass has no entry module: rocm_safety.entry_modules is not "
        "set and there is no top-level package (a folder with an __init__.py, or of modules) in ./ (roots '.'); "
        "name the modules a process imports in rocm_safety.entry_modules, or set roots\n"
        "import-policy: 1 configuration error(s); nothing was checked\n"
    )
    assert project.run("check")[0] == 2
    snapshot("why-no-entry.stderr", err)


def test_why_a_module_neither_heavy_nor_of_the_project_says_so(project: Project) -> None:
    project.config(POLICY)
    project.write("vllm/__init__.py", "import numpy\n")
    project.write("vllm/quant/__init__.py", "")
    code, out, err = project.run("why", "numpy")
    assert (code, out) == (2, "")
    assert "numpy is neither a heavy module (rocm_safety.heavy_modules) nor a module of this project" in err
    code, out, _ = project.run("why", "vllm")  # a project module: an answer, chain or not
    assert code == 0


def test_why_unknown_entry_module_is_a_configuration_error(project: Project) -> None:
    project.config(POLICY)
    project.write("vllm/__init__.py", "")
    code, out, err = project.run("why", "tilelang")
    assert (code, out) == (2, "")
    assert err.splitlines()[0] == (
        "import-policy: import-policy.yaml:6: entry module 'vllm.quant' is not a module of the project "
        "(no vllm/quant.py or vllm/quant/__init__.py under roots .); the project's top-level packages: vllm"
    )


# --- one rule at a time: flag and allow ----------------------------------------


def lines_for(project: Project, rule: str, source: str, extra_policy: str = "", reached: bool = False) -> list[str]:
    project.config(POLICY.replace("entry_modules: [vllm, vllm.quant]", "entry_modules: [app]") + extra_policy)
    project.write("app/__init__.py", "from app import mod\n" if reached else "")
    project.write("app/mod.py", source)
    if "gateway: vllm.tilelang_utils" in extra_policy:  # a gateway must be a module of the project
        project.write("vllm/tilelang_utils/__init__.py", "import tilelang\nimport tilelang.language as T\n")
    return findings(project, "--select", rule, "app/mod.py")


@pytest.mark.parametrize(
    "source",
    [
        '_has_module("aiter")\n',
        'def f():\n    return _has_module("tilelang.language")\n',
        'import vllm.utils.import_utils as iu\niu._has_module("triton")\n',
        'if is_cuda():\n    _has_module("aiter")\n',  # wherever it stands, guarded or not
    ],
)
def test_trial_import_probe_flags(project: Project, source: str) -> None:
    assert len(lines_for(project, "trial-import-probe", source)) == 1


@pytest.mark.parametrize(
    "source",
    ['_has_module("numpy")\n', '_has_module_spec("aiter")\n', "_has_module(name)\n", '_has_module_spec_x("aiter")\n'],
)
def test_trial_import_probe_allows(project: Project, source: str) -> None:
    assert lines_for(project, "trial-import-probe", source) == []


XFORMERS_PROBE = "def has_aiter():\n    try:\n        import aiter  # noqa: F401\n        return True\n    except ImportError:\n        return False\n"


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("try:\n    import aiter\nexcept ImportError:\n    pass\n", 2),
        ("try:\n    import aiter.ops\n    HAS = True\nexcept ModuleNotFoundError:\n    HAS = False\n", 2),
        ("try:\n    from aiter import ops, gemm\nexcept (OSError, ImportError):\n    ops = None\nif ops is None:\n    pass\n", 2),
        ("try:\n    import aiter\n    del aiter\nexcept Exception:\n    pass\n", 2),
        ("try:\n    import aiter\nexcept:\n    pass\n", 2),
        ("if is_cuda():\n    try:\n        import aiter\n    except ImportError:\n        pass\n", 3),  # wherever it stands
        (XFORMERS_PROBE, 3),  # in a project function: the `try:` inside is the probe
        ("try:\n    if x:\n        import aiter\nexcept ImportError:\n    pass\n", 3),  # under an `if` in the `try:`
        ("try:\n    if x:\n        pass\n    elif y:\n        import aiter\nexcept ImportError:\n    pass\n", 5),
        # a literal dynamic import only to see whether it loads
        ("import importlib\ntry:\n    importlib.import_module('aiter')\nexcept ImportError:\n    pass\n", 3),
    ],
)
def test_an_inline_probe_is_a_trial_import_probe(project: Project, source: str, line: int) -> None:
    [found] = lines_for(project, "trial-import-probe", source)
    assert found.startswith(f"app/mod.py:{line}:")
    assert "trial-import-probe `try: import aiter" in found
    assert 'importlib.util.find_spec("aiter") is not None' in found


@pytest.mark.parametrize(
    "source",
    [
        "try:\n    import aiter\nexcept ImportError:\n    aiter = None\ndef f():\n    return aiter.ops\n",  # used: optional
        "try:\n    import aiter\nexcept OSError:\n    pass\n",  # a failed import is not caught
        "try:\n    import numpy\nexcept ImportError:\n    pass\n",  # not heavy
        "import importlib\ntry:\n    m = importlib.import_module('aiter')\nexcept ImportError:\n    m = None\n",  # kept: used
        "try:\n    if x:\n        import aiter\nexcept ImportError:\n    aiter = None\nY = aiter\n",  # used
        # a handler that defines the name again: the module provides it either way (a re-export)
        "try:\n    if x:\n        from aiter import f\nexcept ImportError:\n    def f(*a):\n        raise ImportError\n",
        # the `try:` also imports names that are used: an optional import, its `import aiter` included
        "try:\n    import aiter\n    from aiter.ops import gemm\nexcept ImportError:\n    gemm = None\nX = gemm\n",
    ],
)
def test_inline_probe_allows(project: Project, source: str) -> None:
    assert lines_for(project, "trial-import-probe", source) == []


def test_a_reached_inline_probe_is_one_heavy_import_reachable_finding(project: Project) -> None:
    source = "try:\n    import aiter\nexcept ImportError:\n    pass\n"
    assert lines_for(project, "heavy-import-reachable,trial-import-probe", source, reached=True) == [
        "app/mod.py:2:12: heavy-import-reachable importing `app` imports `aiter` (a trial import: "
        "`try: import aiter` only to see whether it is installed): app -> app.mod -> aiter",
    ]


def test_a_project_function_that_is_an_inline_probe_is_followed_at_its_calls(project: Project) -> None:
    lines = lines_for(project, "heavy-import-reachable,trial-import-probe", XFORMERS_PROBE + "HAS = has_aiter()\n", reached=True)
    assert lines == [
        "app/mod.py:3:16: trial-import-probe `try: import aiter` imports `aiter` just to see whether it is installed; "
        'use `importlib.util.find_spec("aiter") is not None`, which only looks for the module',
        "app/mod.py:7:7: heavy-import-reachable importing `app` calls `has_aiter() -> try: import aiter`, which "
        "imports `aiter`: app -> app.mod -> aiter",
    ]


@pytest.mark.parametrize(
    ("source", "fixed"),
    [
        (
            '"""Doc."""\nfrom __future__ import annotations\n\nimport os\n\ntry:\n    import aiter.ops  # probe\n    HAS = True\nexcept ImportError:\n    HAS = False\n',
            '"""Doc."""\nfrom __future__ import annotations\nimport importlib.util\n\nimport os\n\nHAS = importlib.util.find_spec("aiter") is not None\n',
        ),
        (
            "import importlib.util\n\n\n" + XFORMERS_PROBE,
            'import importlib.util\n\n\ndef has_aiter():\n    return importlib.util.find_spec("aiter") is not None\n',
        ),
    ],
)
def test_an_inline_probe_unsafe_fix(project: Project, source: str, fixed: str) -> None:
    project.config(POLICY.replace("entry_modules: [vllm, vllm.quant]", "entry_modules: [app]"))
    project.write("app/__init__.py", "")
    project.write("app/mod.py", source)
    code, _, _ = project.run("check", "--select", "trial-import-probe", "--fix", "--unsafe-fixes", "app/mod.py")
    assert code == 0
    assert (project.root / "app/mod.py").read_text() == fixed
    code, _, _ = project.run("check", "--select", "trial-import-probe", "--fix", "--unsafe-fixes", "app/mod.py")
    assert (code, (project.root / "app/mod.py").read_text()) == (0, fixed)  # a second --fix changes nothing


def test_an_inline_probe_of_another_shape_is_left_alone_with_a_note(project: Project) -> None:
    project.config(POLICY.replace("entry_modules: [vllm, vllm.quant]", "entry_modules: [app]"))
    project.write("app/__init__.py", "")
    source = "try:\n    import aiter\nexcept ImportError:\n    pass\n"
    project.write("app/mod.py", source)
    code, out, err = project.run("check", "--select", "trial-import-probe", "--fix", "--unsafe-fixes", "app/mod.py")
    assert code == 1
    assert (project.root / "app/mod.py").read_text() == source
    assert "only a `try:` that sets a flag or returns True / False is rewritten" in out + err


@pytest.mark.parametrize(
    "source",
    [
        # a handler or a body that holds an `if`: the rewrite would drop it
        "try:\n    import aiter\n    HAS = True\nexcept ImportError:\n    HAS = False\n    if HAS is False:\n        print('no aiter')\n",
        "DEBUG = 1\ntry:\n    import aiter\n    if DEBUG:\n        print('aiter')\n    HAS = True\nexcept ImportError:\n    HAS = False\n",
    ],
)
def test_an_inline_probe_with_an_if_in_its_handler_or_body_is_left_alone(project: Project, source: str) -> None:
    project.config(POLICY.replace("entry_modules: [vllm, vllm.quant]", "entry_modules: [app]"))
    project.write("app/__init__.py", "")
    project.write("app/mod.py", source)
    code, out, err = project.run("check", "--select", "trial-import-probe", "--fix", "--unsafe-fixes", "app/mod.py")
    assert (project.root / "app/mod.py").read_text() == source
    assert code == 1, out + err


def test_an_inline_probe_fix_reads_fullwidth_true_and_false_as_python_does(project: Project) -> None:
    # Python reads identifiers NFKC-normalized: `\uff34rue` is `True` (it runs so; the test checks).
    source = "try:\n    import aiter\n    HAS = \uff34rue\nexcept ImportError:\n    HAS = \uff26alse\n"
    namespace: dict[str, object] = {}
    exec(compile(source.replace("import aiter", "import os"), "m.py", "exec"), namespace)
    assert namespace["HAS"] is True
    project.config(POLICY.replace("entry_modules: [vllm, vllm.quant]", "entry_modules: [app]"))
    project.write("app/__init__.py", "")
    path = project.write_bytes("app/mod.py", source.encode("utf-8"))
    code, out, err = project.run("check", "--select", "trial-import-probe", "--fix", "--unsafe-fixes", "app/mod.py")
    assert code == 0, out + err
    assert path.read_text(encoding="utf-8") == 'import importlib.util\nHAS = importlib.util.find_spec("aiter") is not None\n'


def test_trial_import_probe_unsafe_fix(project: Project) -> None:
    project.config(POLICY.replace("entry_modules: [vllm, vllm.quant]", "entry_modules: [app]"))
    project.write("app/__init__.py", "")
    project.write("app/mod.py", 'from vllm.utils.import_utils import _has_module\n\nX = _has_module("aiter")\n')
    code, out, _ = project.run("check", "--select", "trial-import-probe", "--fix", "--unsafe-fixes", "app/mod.py")
    assert code == 0
    assert (project.root / "app/mod.py").read_text() == (
        'from vllm.utils.import_utils import _has_module_spec\n\nX = _has_module_spec("aiter")\n'
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import tilelang.language as T\n", "app/mod.py:1:8: eager-heavy-import heavy module `tilelang.language` is imported when this module is imported; import it where it is used, or under a guard"),
        ("from aiter import ops, tuned\n", "app/mod.py:1:6: eager-heavy-import heavy module `aiter` is imported when this module is imported; import it where it is used, or under a guard"),
        ('import importlib\nimportlib.import_module("triton")\n', "app/mod.py:2:25: eager-heavy-import heavy module `triton` is imported when this module is imported; import it where it is used, or under a guard"),
        ("class K:\n    import triton\n", "app/mod.py:2:12: eager-heavy-import heavy module `triton` is imported when this module is imported; import it where it is used, or under a guard"),
        # an inline probe that is also a site of a rule in force: reported once, under that rule, as a trial import
        ("try:\n    import aiter\nexcept ImportError:\n    pass\n", "app/mod.py:2:12: eager-heavy-import heavy module `aiter` is imported when this module is imported (a trial import: `try: import aiter` only to see whether it is installed); import it where it is used, or under a guard"),
        # the name it binds is used: an optional import, not a probe
        ("try:\n    import aiter\nexcept ImportError:\n    aiter = None\nF = aiter.f\n", "app/mod.py:2:12: eager-heavy-import heavy module `aiter` is imported when this module is imported; import it where it is used, or under a guard"),
        ("if is_cuda() or x:\n    import aiter\n", "app/mod.py:2:12: eager-heavy-import heavy module `aiter` is imported when this module is imported; import it where it is used, or under a guard; under `is_cuda() or x`, which the pass cannot judge on ROCm: state it in rocm_safety.values"),
        ('X = _has_module("aiter")\n', 'app/mod.py:1:5: eager-heavy-import `_has_module("aiter")` runs when this module is imported and imports `aiter`'),
        (
            "def _load():\n    import tilelang\n\n\nOK = _load()\n",
            "app/mod.py:5:6: eager-heavy-import `_load()` runs when this module is imported and imports `tilelang` (_load() -> import tilelang)",
        ),
    ],
)
def test_eager_heavy_import_flags(project: Project, source: str, expected: str) -> None:
    assert lines_for(project, "eager-heavy-import", source) == [expected]


def test_guarded_import_else_branch_is_reported(project: Project) -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from vllm.platforms import current_platform\n"
        "if TYPE_CHECKING or current_platform.is_cuda():\n"
        "    import tilelang\n"
        "else:\n"
        "    import aiter\n"
    )
    assert lines_for(project, "eager-heavy-import", source) == [
        "app/mod.py:6:12: eager-heavy-import heavy module `aiter` is imported when this module is imported; "
        "import it where it is used, or under a guard"
    ]


@pytest.mark.parametrize(
    "source",
    [
        "def f():\n    import tilelang\n",  # function-level import
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import tilelang\n",
        "if current_platform.is_cuda():\n    import deep_gemm, tilelang\n",
        "if is_cuda() and x:\n    import aiter\n",
        "if not current_platform.is_cuda():\n    pass\nelse:\n    import aiter\n",
        "from vllm.tilelang_utils import tilelang\n",  # a gateway is checked where it imports
        "import numpy\n",
        "def _load():\n    import tilelang\n",  # never called at import time
        "lazy = lambda: __import__('tilelang')\n",
        "def f():\n    return _has_module('aiter')\n",
    ],
)
def test_eager_heavy_import_allows(project: Project, source: str) -> None:
    assert lines_for(project, "eager-heavy-import", source) == []


GATEWAY_RULE = """\
rules:
  - id: tilelang-gateway
    forbid: [tilelang]
    allow_in: ["vllm/tilelang_utils/**"]
    fix:
      gateway: vllm.tilelang_utils
      exports: {tilelang: tilelang, tilelang.language: T}
"""


@pytest.mark.parametrize(
    ("source", "column"),
    [
        ("import tilelang\n\n@tilelang.jit(out_idx=[-1])\ndef kernel():\n    pass\n", 2),
        ("import triton\n\nclass K:\n    @triton.autotune(configs=[])\n    def run(self):\n        pass\n", 6),
        ("from vllm.tilelang_utils import tilelang\n\n@tilelang.jit\ndef kernel():\n    pass\n", 2),
        ("from vllm.tilelang_utils import T\n\n@T.prim_func\ndef kernel():\n    pass\n", 2),
    ],
)
def test_import_time_jit_flags(project: Project, source: str, column: int) -> None:
    [line] = lines_for(project, "import-time-jit", source, GATEWAY_RULE, reached=True)
    assert line.startswith(f"app/mod.py:{source[:source.index('@')].count(chr(10)) + 1}:{column}: import-time-jit `@")


@pytest.mark.parametrize(
    "source",
    [
        "import functools\n\n@functools.cache\ndef f():\n    pass\n",
        "def build():\n    import tilelang\n\n    @tilelang.jit\n    def kernel():\n        pass\n    return kernel\n",
        "import tilelang\n\nif current_platform.is_cuda():\n    @tilelang.jit\n    def kernel():\n        pass\n",
        "from vllm.other_utils import tilelang\n\n@tilelang.jit\ndef kernel():\n    pass\n",  # not a declared gateway
    ],
)
def test_import_time_jit_allows(project: Project, source: str) -> None:
    assert lines_for(project, "import-time-jit", source, GATEWAY_RULE, reached=True) == []


def test_import_time_jit_only_where_an_entry_module_reaches(project: Project) -> None:
    source = "import tilelang\n\n@tilelang.jit\ndef kernel():\n    pass\n"
    assert lines_for(project, "import-time-jit", source) == []


def test_heavy_import_reachable_only_from_entry_modules(project: Project) -> None:
    project.config(POLICY.replace("entry_modules: [vllm, vllm.quant]", "entry_modules: [app]"))
    project.write("app/__init__.py", "from app import a\n")
    project.write("app/a.py", "import aiter\n")
    project.write("lonely/__init__.py", "import aiter\n")
    project.write("app/b.py", "def load():\n    from app import c\n")
    project.write("app/c.py", "import tilelang\n")  # reached only through a function body
    assert findings(project, "--select", "heavy-import-reachable") == [
        "app/a.py:1:8: heavy-import-reachable importing `app` imports `aiter`: app -> app.a -> aiter"
    ]


def test_rules_apply_only_where_files_match(project: Project) -> None:
    project.config(POLICY.replace("entry_modules: [vllm, vllm.quant]", 'entry_modules: [app]\n  files: ["app/**"]'))
    project.write("app/__init__.py", "import aiter\n")
    project.write("tools/x.py", "import aiter\n")
    assert [line.split(": ")[0] for line in findings(project, )] == ["app/__init__.py:1:8"]


def test_no_config_uses_the_preset(project: Project) -> None:
    project.write("app/__init__.py", "import tilelang\n")
    code, out, err = project.run("check")
    assert code == 1
    # entry modules default to the top-level packages
    assert out.splitlines()[0].startswith("app/__init__.py:1:8: heavy-import-reachable importing `app` imports `tilelang`")
    assert "rocm-safety preset" in err


def test_call_of_a_function_importing_from_a_heavy_module_names_the_module(project: Project) -> None:
    source = "def _probe():\n    from aiter.ops.mhc import mhc_pre\n    return True\n\n\nOK = _probe()\n"
    assert lines_for(project, "eager-heavy-import", source) == [
        "app/mod.py:6:6: eager-heavy-import `_probe()` runs when this module is imported and imports "
        "`aiter.ops.mhc` (_probe() -> import aiter.ops.mhc)"
    ]


def test_suppression_holds_when_only_the_chain_rule_runs(project: Project) -> None:
    """With heavy-import-reachable alone the engine only syntax-checks the files passed;
    their suppression comments still count."""
    chain_51151(project)
    project.write("vllm/layers/mhc.py", MHC.replace("_has_tilelang_mhc()\n", "_has_tilelang_mhc()  # import-policy: ignore[heavy-import-reachable]\n"))
    assert findings(project, "--select", "heavy-import-reachable") == []
    assert findings(project, "--select", "heavy-import-reachable", "--no-cache") == []


def test_a_relative_import_spelled_without_a_space_is_an_edge(project: Project) -> None:
    """`from.dspark import Spark` is valid Python: the pass must read the file for its edge."""
    chain_51151(project)
    project.write("vllm/quant/dsv4/__init__.py", "from.dspark import Spark\n")
    assert REACHABLE_LINE in findings(project, "--no-cache")
