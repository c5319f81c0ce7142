"""The dataclasses' methods kept compiled between runs (import_policy.dataclass_code): a class
made from kept code is the class dataclasses makes, a run that finds its code compiles none,
and a file that is not the module's own is ignored."""

from __future__ import annotations

import builtins
import dataclasses
import sys
from pathlib import Path
from typing import Any

import pytest

from import_policy import dataclass_code

SOURCE = '''
from __future__ import annotations
from dataclasses import dataclass, field

@dataclass(frozen=True)
class Record:
    name: str
    line: int = 1
    tags: tuple[str, ...] = ()
    seen: list[int] = field(default_factory=list, compare=False, repr=False)
    kind: str = field(default="x", kw_only=True)

@dataclass
class Plain:
    items: dict[str, int] = field(default_factory=dict)
    count: int = 0
'''


def _classes() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "kept_records"}
    module = type(sys)("kept_records")
    sys.modules["kept_records"] = module  # dataclasses reads the module of a string annotation
    try:
        exec(compile(SOURCE, "kept_records.py", "exec"), module.__dict__)
        namespace.update(module.__dict__)
    finally:
        del sys.modules["kept_records"]
    return namespace


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "__pycache__" / "kept.marshal"
    monkeypatch.setattr(dataclass_code, "_path", lambda: str(path))
    monkeypatch.setattr(dataclass_code, "_installed", False)
    monkeypatch.setattr(dataclass_code, "_known", {})
    monkeypatch.setattr(dataclass_code, "_compiled", {})
    monkeypatch.setattr(dataclass_code, "_used", set())
    monkeypatch.setattr(dataclasses, "exec", builtins.exec, raising=False)  # undone after the test
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return path


def _same(made: dict[str, Any], plain: dict[str, Any]) -> None:
    for name in ("Record", "Plain"):
        ours, theirs = made[name], plain[name]
        for method in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
            a, b = getattr(ours, method), getattr(theirs, method)
            if hasattr(b, "__code__") and b.__code__.co_filename == "<string>":
                assert a.__code__.co_code == b.__code__.co_code and a.__code__.co_consts == b.__code__.co_consts
                assert a.__code__.co_names == b.__code__.co_names, (name, method)
        assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(theirs)]
    record = made["Record"]("a", tags=("t",), kind="y")
    assert repr(record) == "Record(name='a', line=1, tags=('t',), kind='y')"
    assert record == made["Record"]("a", tags=("t",), kind="y", seen=[3]) and hash(record) == hash(made["Record"]("a", tags=("t",), kind="y"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.line = 2  # type: ignore[misc]
    assert dataclasses.replace(record, line=5).line == 5
    plain = made["Plain"]()
    plain.count = 2
    assert plain == made["Plain"]({}, 2) and plain.items is not made["Plain"]().items


def test_kept_code_makes_the_classes_dataclasses_makes(kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _classes()
    dataclass_code.install()
    first = _classes()  # compiled, then written
    _same(first, plain)
    assert dataclass_code._compiled
    dataclass_code.save()
    assert kept.is_file() and not dataclass_code._compiled

    # The next run: every method's code is read back, none compiled.
    monkeypatch.setattr(dataclass_code, "_installed", False)
    monkeypatch.setattr(dataclass_code, "_known", {})

    def no_compile(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled again")

    dataclass_code.install()
    monkeypatch.setattr(dataclass_code, "compile", no_compile, raising=False)
    again = _classes()
    _same(again, plain)
    assert not dataclass_code._compiled
    dataclass_code.save()  # nothing new: nothing written


@pytest.mark.parametrize("content", [b"", b"garbage", dataclass_code._FORMAT + b"\x00\x00\r\n" + b"rest",
                                     dataclass_code._FORMAT + b"x" * 3])
def test_a_file_not_its_own_is_ignored(kept: Path, content: bytes) -> None:
    kept.parent.mkdir()
    kept.write_bytes(content)
    dataclass_code.install()
    assert dataclass_code._known == {}
    _same(_classes(), _classes())


def test_no_file_when_bytecode_is_not_written(kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    dataclass_code.install()
    _classes()
    dataclass_code.save()
    assert not kept.exists()


def test_an_unwritable_folder_costs_nothing_but_the_compiles(kept: Path) -> None:
    kept.parent.parent.joinpath("__pycache__").write_text("a file, not a folder", encoding="utf-8")
    dataclass_code.install()
    _classes()
    dataclass_code.save()  # no error
    assert kept.parent.is_file()
