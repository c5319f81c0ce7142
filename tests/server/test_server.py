"""`import-policy server` driven as an editor drives it: a subprocess spoken to over stdio."""

from __future__ import annotations

import os

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from import_policy.cli import main
from lsp_client import Client, frame, uri

POLICY = """\
version: 1
rules:
  - id: use-regex
    forbid: [re]
    message: "use regex"
    fix: {replace_module: regex}
  - id: no-pickle
    forbid: [pickle]
    message: "no pickle"
    severity: warning
  - id: stable-abi
    kind: include
    files: ["csrc/**"]
    forbid: ["ATen/**"]
rocm_safety:
  heavy_modules: [tilelang]
  probes: {_has_module: _has_module_spec}
  entry_modules: [pkg]
"""

TREE = {
    "csrc/kernel.cu": "#include <cuda.h>\n// a comment\n#include <ATen/ATen.h>\n",
    "pkg/__init__.py": "from pkg import a\n",
    "pkg/a.py": "from pkg import b\n",
    "pkg/b.py": "x = 1\n",
    "pkg/probes.py": "def _has_module(name):\n    return True\n\n\ndef _has_module_spec(name):\n    return True\n",
    "pkg/util.py": "import re\nimport pickle\nfrom pkg.probes import _has_module\n\nHAS = _has_module(\"tilelang\")\n",
}


def _write_tree(folder: Path) -> Path:
    (folder / "import-policy.yaml").write_text(POLICY)
    for relative, text in TREE.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    return folder


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workspace").resolve()


@pytest.fixture(scope="module")
def served(workspace: Path) -> Iterator[Client]:
    """One server for the module (a process costs about a second to start): each test
    works in a folder of its own, a project of its own to the server."""
    started = Client(workspace)
    started.initialize(workspace)
    yield started
    started.kill()


@pytest.fixture
def tree(workspace: Path, request: pytest.FixtureRequest) -> Path:
    folder = workspace / re.sub(r"\W", "_", request.node.name)
    folder.mkdir()
    return _write_tree(folder)


@pytest.fixture
def client(served: Client) -> Client:
    return served


@pytest.fixture
def own_tree(tmp_path: Path) -> Path:
    """For a test with a server of its own."""
    return _write_tree(tmp_path.resolve())


def _check_json(root: Path, relative: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    """What `check PATH` says of the file as it is on disk, as the server shows it (ASCII
    sources: a column is a UTF-16 offset plus one)."""
    monkeypatch.chdir(root)
    capsys.readouterr()
    main(["check", "--no-cache", "--format", "json", relative])
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    return sorted(
        (d["rule"], 1 if d["severity"] == "error" else 2, d["line"] - 1, d["column"] - 1, d["end_line"] - 1, d["end_column"] - 1, d["message"])
        for d in found
    )


def _stdin_json(root: Path, relative: str, text: str) -> list[tuple[object, ...]]:
    """What `check --stdin-filename PATH -` says of the same bytes (nothing written to disk)."""
    done = subprocess.run(
        [sys.executable, "-m", "import_policy", "check", "--no-cache", "--format", "json", "--stdin-filename", relative, "-"],
        cwd=root, input=text, capture_output=True, text=True, check=False,
    )
    found = json.loads(done.stdout)["diagnostics"]
    return sorted(
        (d["rule"], 1 if d["severity"] == "error" else 2, d["line"] - 1, d["column"] - 1, d["end_line"] - 1, d["end_column"] - 1, d["message"])
        for d in found
    )


def _shown(diagnostics: list[dict[str, object]]) -> list[tuple[object, ...]]:
    out = []
    for d in diagnostics:
        r = d["range"]
        assert isinstance(r, dict)
        out.append((d["code"], d["severity"], r["start"]["line"], r["start"]["character"], r["end"]["line"], r["end"]["character"], d["message"]))
    return sorted(out)


WIDE = "x = '\N{GRINNING FACE}\N{GRINNING FACE}'; import pickle\n"  # `pickle` at code point 15


def test_initialize_advertises_sync_and_code_action_kinds_and_speaks_utf8_when_offered(own_tree: Path) -> None:
    client = Client(own_tree)
    try:
        capabilities = client.initialize(own_tree, encodings=["utf-8", "utf-16"])["result"]["capabilities"]
        assert capabilities["textDocumentSync"]["openClose"] is True
        assert capabilities["textDocumentSync"]["save"]
        assert set(capabilities["codeActionProvider"]["codeActionKinds"]) == {"quickfix", "source.fixAll.import-policy"}
        assert capabilities["positionEncoding"] == "utf-8"
        wide = own_tree / "pkg/wide.py"
        client.open(wide, WIDE)
        (shown,) = client.diagnostics(wide, version=1)
        start = WIDE.encode("utf-8").index(b"pickle")
        assert shown["range"]["start"] == {"line": 0, "character": start} and start == 23
        assert shown["range"]["end"] == {"line": 0, "character": start + len("pickle")}
        assert client.shutdown() == 0
    finally:
        client.kill()


def test_a_client_that_offers_no_encoding_gets_utf16_columns(tree: Path, client: Client) -> None:
    wide = tree / "pkg/wide.py"
    client.open(wide, WIDE)
    (shown,) = client.diagnostics(wide, version=1)
    start = len(WIDE[: WIDE.index("pickle")].encode("utf-16-le")) // 2
    assert shown["range"]["start"] == {"line": 0, "character": start} and start == 19


def test_open_change_save_publish_what_check_gives(
    tree: Path, client: Client, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    util = tree / "pkg/util.py"
    client.open(util)
    shown = client.diagnostics(util, version=1)
    assert _shown(shown) == _check_json(tree, "pkg/util.py", capsys, monkeypatch)
    assert {d["code"] for d in shown} == {"use-regex", "no-pickle", "trial-import-probe"}
    pickle = next(d for d in shown if d["code"] == "no-pickle")
    assert pickle["severity"] == 2 and pickle["source"] == "import-policy"
    # The link is the rule's explain text.
    href = next(d for d in shown if d["code"] == "use-regex")["codeDescription"]["href"]
    assert href.startswith("file://") and "use regex" in Path(href[len("file://"):]).read_text()

    edited = "import os\nimport pickle, re\n"
    mark = len(client.notifications)
    client.change(util, edited, 2)
    shown = client.diagnostics(util, since=mark, version=2)
    util.write_text(edited)  # the buffer is what check sees on disk now
    assert _shown(shown) == _check_json(tree, "pkg/util.py", capsys, monkeypatch)
    assert [(d["code"], d["range"]["start"]) for d in sorted(shown, key=lambda d: d["code"])] == [
        ("no-pickle", {"line": 1, "character": edited.splitlines()[1].index("pickle")}),
        ("use-regex", {"line": 1, "character": edited.splitlines()[1].index("re")}),
    ]
    mark = len(client.notifications)
    client.save(util)
    assert _shown(client.diagnostics(util, since=mark)) == _shown(shown)
    # A burst of keystrokes: whichever versions are checked on the way, the last is, as it stands.
    mark = len(client.notifications)
    for version in range(3, 13):
        client.change(util, "import pickle\n" * (version - 2), version)
    final = client.diagnostics(util, since=mark, version=12)
    assert [(d["code"], d["range"]["start"]["line"]) for d in final] == [("no-pickle", line) for line in range(10)]


def test_an_edit_republishes_the_open_file_whose_chain_it_changed(
    tree: Path, client: Client, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = tree / "pkg/a.py", tree / "pkg/b.py"
    client.open(a)
    assert client.diagnostics(a) == []
    client.open(b)
    assert client.diagnostics(b) == []
    mark = len(client.notifications)
    client.change(b, "import tilelang\n", 2)
    site = client.diagnostics(b, since=mark, version=2)
    link = client.diagnostics(a, since=mark)
    assert _shown(site) == _stdin_json(tree, "pkg/b.py", "import tilelang\n")  # the buffer, as stdin stands for it
    assert [d["code"] for d in site] == ["heavy-import-reachable"]
    # The hook rule's link finding in the open file that leads to the edited one.
    assert [d["code"] for d in link] == ["heavy-import-reachable"]
    assert "pkg -> pkg.a -> pkg.b -> tilelang" in link[0]["message"]
    b.write_text("import tilelang\n")
    assert _shown(link) == _check_json(tree, "pkg/a.py", capsys, monkeypatch)
    b.write_text(TREE["pkg/b.py"])
    mark = len(client.notifications)
    client.change(b, TREE["pkg/b.py"], 3)
    assert client.diagnostics(b, since=mark, version=3) == []
    assert client.diagnostics(a, since=mark) == []


def test_an_edit_on_the_chain_in_a_checked_tree_publishes_what_a_cold_check_gives(
    tree: Path, client: Client, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server loads the graphs a `check` stored; a new import, then a new call, in a
    module on the chain (`pkg` -> `pkg.a`) publishes what a cold `check` of the buffer's text
    written to disk says."""
    (tree / "pkg/heavy.py").write_text("import tilelang\n")
    (tree / "pkg/later.py").write_text("def load():\n    import tilelang\n")
    monkeypatch.chdir(tree)
    main(["check", "--quiet"])  # warm: the facts cache and the stored graphs
    a = tree / "pkg/a.py"
    client.open(a)
    assert client.diagnostics(a) == []
    for version, text in enumerate((
        "from pkg import b\nimport pkg.heavy as _heavy\n",
        "from pkg import b\nimport pkg.later as _later\n",
        "from pkg import b\nimport pkg.later as _later\n_later.load()\n",
    ), start=2):
        mark = len(client.notifications)
        client.change(a, text, version)
        shown = client.diagnostics(a, since=mark, version=version)
        a.write_text(text)  # the buffer is what check sees on disk now
        assert _shown(shown) == _check_json(tree, "pkg/a.py", capsys, monkeypatch)
        assert [d["code"] for d in shown] == ([] if version == 3 else ["heavy-import-reachable"])


def _actions(client: Client, path: Path, only: list[str] | None = None) -> list[dict[str, object]]:
    lines = path.read_text().splitlines()
    context: dict[str, object] = {"diagnostics": []}
    if only is not None:
        context["only"] = only
    answer = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri(path)},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": len(lines), "character": 0}},
        "context": context,
    })
    result: list[dict[str, object]] = answer["result"] or []
    return result


def _apply(text: str, edit: dict[str, object], target: str) -> str:
    (change,) = edit["changes"][target]  # type: ignore[index]
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(position: dict[str, int]) -> int:
        return offsets[position["line"]] + position["character"]

    start, end = at(change["range"]["start"]), at(change["range"]["end"])
    return text[:start] + change["newText"] + text[end:]


def test_code_actions_safe_quick_fix_unsafe_marked_and_fix_all(tree: Path, client: Client) -> None:
    util = tree / "pkg/util.py"
    text = util.read_text()
    client.open(util)
    client.diagnostics(util, version=1)
    actions = _actions(client, util)
    by_rule = {a["diagnostics"][0]["code"]: a for a in actions}  # type: ignore[index]
    safe, unsafe = by_rule["use-regex"], by_rule["trial-import-probe"]
    assert safe["kind"] == "quickfix" and safe["isPreferred"] is True and "unsafe" not in str(safe["title"])
    assert unsafe["kind"] == "quickfix" and not unsafe.get("isPreferred") and "unsafe" in str(unsafe["title"])
    assert _apply(text, safe["edit"], uri(util)) == text.replace("import re\n", "import regex as re\n")  # type: ignore[arg-type]
    assert '_has_module_spec("tilelang")' in _apply(text, unsafe["edit"], uri(util))  # type: ignore[arg-type]
    (fix_all,) = _actions(client, util, only=["source.fixAll.import-policy"])
    assert fix_all["kind"] == "source.fixAll.import-policy"
    # Every safe fix and no unsafe one: what `check --fix` writes.
    fixed = _apply(text, fix_all["edit"], uri(util))  # type: ignore[arg-type]
    assert fixed == text.replace("import re\n", "import regex as re\n")
    assert _actions(client, util, only=["source.organizeImports"]) == []


def _replace_text(path: Path, text: str) -> None:
    """Write as editors save, by renaming a full file over the old one: the server watches the
    configuration by its stat data on every message, and a write in place can be read half done."""
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    os.replace(part, path)


def test_a_configuration_change_is_picked_up_and_a_bad_one_shown_on_the_yaml(tree: Path, client: Client) -> None:
    b = tree / "pkg/b.py"
    config = tree / "import-policy.yaml"
    client.open(b, "import json\n")
    assert client.diagnostics(b) == []
    _replace_text(config, POLICY.replace("rules:\n", "rules:\n  - id: no-json\n    forbid: [json]\n"))
    mark = len(client.notifications)
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri(config), "type": 2}]})
    assert [d["code"] for d in client.diagnostics(b, since=mark)] == ["no-json"]

    bad = POLICY.replace("rules:\n", "rules:\n  - id: no-json\n    forbid: [json]\n    colour: red\n")
    _replace_text(config, bad)
    mark = len(client.notifications)
    client.save(config)  # the editor saved the YAML
    at = bad.splitlines().index("    colour: red")

    def shown_at_its_line(message: dict[str, Any]) -> bool:
        params = message.get("params", {})
        found = params.get("diagnostics") or [{}]
        return params.get("uri") == uri(config) and found[0].get("range", {}).get("start", {}).get("line") == at

    # The server may read the file while the test writes it (a torn read is a fault at line 0,
    # read again at the next message): what counts is that the fault at its line is shown.
    (fault,) = client.wait_for(shown_at_its_line, since=mark)["params"]["diagnostics"]
    assert "colour" in str(fault["message"])
    assert client.diagnostics(b, since=mark) == []  # no stale findings under a configuration that does not load

    _replace_text(config, POLICY)
    mark = len(client.notifications)
    client.save(config)
    assert client.diagnostics(config, since=mark) == []
    assert client.diagnostics(b, since=mark) == []


def test_malformed_messages_get_errors_and_the_server_goes_on(tree: Path, client: Client) -> None:
    client.send_raw(frame(b"{this is not json"))
    answer = client.request("textDocument/codeAction", {"textDocument": {"uri": 3}})
    assert answer["error"]["code"] in (-32602, -32600, -32603)
    answer = client.request("no/such/method", {})
    assert answer["error"]["code"] == -32601
    util = tree / "pkg/util.py"
    client.open(util)
    assert client.diagnostics(util, version=1)  # still serving


def test_without_pygls_the_command_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pygls", None)  # find_spec answers None: not installed
    assert main(["server"]) == 2
    assert "pip install 'pygls>=2,<3' lsprotocol" in capsys.readouterr().err


def test_check_never_imports_the_server(tree: Path) -> None:
    probe = (
        "import sys\nfrom import_policy.cli import main\nmain(['check', '--no-cache', '.'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol') or m.startswith('import_policy.server')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=tree, capture_output=True, text=True, check=False)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_c_family_rules_and_a_file_changed_on_disk(
    tree: Path, client: Client, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kernel = tree / "csrc/kernel.cu"
    client.open(kernel)
    shown = client.diagnostics(kernel, version=1)
    assert [(d["code"], d["range"]["start"]["line"]) for d in shown] == [("stable-abi", 2)]
    assert _shown(shown) == _check_json(tree, "csrc/kernel.cu", capsys, monkeypatch)
    a, b = tree / "pkg/a.py", tree / "pkg/b.py"
    client.open(a)
    assert client.diagnostics(a) == []
    b.write_text("import tilelang\n")  # not open: the disk is what the graph reads
    mark = len(client.notifications)
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri(b), "type": 2}]})
    assert [d["code"] for d in client.diagnostics(a, since=mark)] == ["heavy-import-reachable"]
    mark = len(client.notifications)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri(a)}})
    assert client.diagnostics(a, since=mark) == []  # a closed file shows nothing


def test_a_frame_over_the_size_bound_is_refused_and_the_server_goes_on(tree: Path, client: Client) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 999, "method": "shutdown"}).encode()
    client.send_raw(b"Content-Length: 99999999999\r\n\r\n" + body)  # a length no memory holds
    refused = client.response(None, timeout=60)
    assert refused["error"]["code"] == -32600 and "99999999999 bytes" in refused["error"]["message"]
    util = tree / "pkg/util.py"
    client.open(util)  # the next frame is read as one: still serving
    assert client.diagnostics(util, version=1)
    assert 999 not in client._responses  # the refused frame's request was never run


def test_a_configuration_edited_on_disk_is_seen_without_a_file_watcher(tree: Path, client: Client) -> None:
    """As under Neovim 0.7, whose client registers no watcher: no event says the file
    changed; the next message does (its stat data moved)."""
    b = tree / "pkg/b.py"
    config = tree / "import-policy.yaml"
    client.open(b, "import json\n")
    assert client.diagnostics(b, version=1) == []
    config.write_text(POLICY.replace("rules:\n", "rules:\n  - id: no-json\n    forbid: [json]\n"))
    mark = len(client.notifications)
    _actions(client, b)  # any message
    assert [d["code"] for d in client.diagnostics(b, since=mark, timeout=30)] == ["no-json"]
    config.write_text(POLICY.replace("rules:\n", "rules:\n  - id: no-json\n    forbid: [json]\n    colour: red\n"))
    mark = len(client.notifications)
    client.change(b, "import json\n\n", 2)
    (fault,) = client.diagnostics(config, since=mark, timeout=30)  # a configuration that no longer loads
    assert "colour" in str(fault["message"])


def test_a_gitignore_change_event_checks_the_open_files_again(tree: Path, client: Client) -> None:
    a = tree / "pkg/a.py"
    (tree / "pkg/b.py").write_text("import tilelang\n")
    client.open(a)
    assert [d["code"] for d in client.diagnostics(a, version=1)] == ["heavy-import-reachable"]
    ignore = tree / ".gitignore"
    ignore.write_text("pkg/b.py\n")  # no module `pkg.b` any more: `from pkg import b` imports nothing
    mark = len(client.notifications)
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri(ignore), "type": 2}]})
    assert client.diagnostics(a, since=mark, timeout=30) == []


def test_exit_without_shutdown_is_exit_code_1(client: Client) -> None:
    """The module's last test: it ends the server the others share."""
    client.notify("exit", None)
    assert client.process.wait(60) == 1
