"""The fix-payload registry: every payload type has a tag, a JSON codec and an applier."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from import_policy.cache.run import Outcome, RunCache
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import SourceFile
from import_policy.fix.apply import APPLIERS, fix_bytes
from import_policy.edits.payload import PAYLOADS, AliasEdit, ImportFix, InlineProbeFix, ProbeFix, UnknownPayload, decode, encode
from import_policy.project.layout import layout_digest


def LAYOUT(root: Path) -> tuple[list[str], str]:
    return ["."], layout_digest(root, ["."])

SAMPLES = [
    ImportFix("import", (AliasEdit("triton.language", True, "tl2", "tl", "vllm.triton_utils"),)),
    ImportFix("from", (AliasEdit("b64encode", False, "b64encode", "pybase64"),), safe=True),
    ProbeFix("_has_module", "_has_module_spec"),
    InlineProbeFix("xformers"),
]


def test_every_payload_type_has_an_applier_and_a_codec() -> None:
    assert set(APPLIERS) == set(PAYLOADS)
    assert {sample.tag for sample in SAMPLES} == set(PAYLOADS)


@pytest.mark.parametrize("payload", SAMPLES, ids=lambda p: p.tag)
def test_a_payload_survives_json(payload: Any) -> None:
    assert decode(json.loads(json.dumps(encode(payload)))) == payload


@dataclass(frozen=True)
class Unregistered:
    tag: ClassVar[str] = "made-up"
    safe: bool = True

    def encode(self) -> dict[str, Any]:
        return {}


def _finding(fix: Any) -> Diagnostic:
    return Diagnostic("r", "error", "m.py", 1, 8, 1, 9, "m", fixable=True, fix=fix)


def test_an_unknown_tag_is_refused_by_codec_and_fixer() -> None:
    with pytest.raises(UnknownPayload):
        encode(Unregistered())
    with pytest.raises(UnknownPayload):
        decode({"type": "made-up"})
    fixed = fix_bytes(b"import triton\n", [_finding(Unregistered())])
    assert (fixed.new, [why for _, why in fixed.failed]) == (b"import triton\n", ["no fix this version knows how to apply"])


def test_the_run_cache_skips_a_run_it_cannot_store(tmp_path: Path) -> None:
    # Before, a payload without a codec raised out of `put`: every cached whole-tree run an internal error.
    path = tmp_path / "m.py"
    path.write_text("import triton\n")
    files = [SourceFile(path, "m.py", "python")]
    cache = RunCache(tmp_path)
    key = RunCache.key(None, None, files)  # type: ignore[arg-type]
    assert key is not None
    snapshot = RunCache.snapshot(files)
    assert snapshot is not None
    cache.put(key, files, snapshot, Outcome([_finding(Unregistered())], 1, [], []), LAYOUT(tmp_path))
    assert cache.get(key, files) is None
    cache.put(key, files, snapshot, Outcome([_finding(SAMPLES[0])], 1, [], []), LAYOUT(tmp_path))
    stored = cache.get(key, files)
    assert stored is not None and stored.diagnostics[0].fix == SAMPLES[0]


def test_a_dotted_target_survives_json() -> None:
    # `import a.b as a`, which the facts read as `import a.b`: the edit carries the gateway's
    # name for `a.b`; a codec dropping it would leave a warm run no edit for the statement.
    payload = ImportFix("import", (AliasEdit("triton.language", False, "triton", "triton", "pk.gw", "tl"),))
    assert decode(json.loads(json.dumps(encode(payload)))) == payload


def test_a_warm_json_run_keeps_the_edit_of_a_dotted_import_aliased_to_its_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Against the contract's expectation (section 6: the alias the original bound, the gateway's
    # name for `triton.language`), cold and then from the run cache: comparing the two runs
    # alone would not see a codec both share.
    from tests.fix.bindings import CONFIG, GATEWAY, write_tree
    from import_policy.cli import main

    write_tree(tmp_path, {"import-policy.yaml": CONFIG, **GATEWAY, "app/__init__.py": "",
                          "app/m.py": "import triton.language as triton\n"})
    monkeypatch.chdir(tmp_path)
    for _ in ("cold", "warm", "warm again"):
        capsys.readouterr()
        main(["check", "--format", "json", "."])
        found = json.loads(capsys.readouterr().out)["diagnostics"]
        assert [(d["path"], d["line"], d["fix"] and [e["content"] for e in d["fix"]["edits"]]) for d in found] == [
            ("app/m.py", 1, ["from pk.gw import tl as triton\n"])
        ]
    assert (tmp_path / ".import_policy_cache").is_dir()
