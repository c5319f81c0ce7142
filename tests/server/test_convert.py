"""Positions between the engine (1-based code points) and the protocol (0-based, in the
negotiated code units), a fix as one edit, and a buffer as its file's bytes."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, strategies as st

from lsprotocol import types
from pygls.workspace import PositionCodec

from import_policy.server.convert import client_column, edit_between, lines_of
from import_policy.server.documents import Buffer

UTF16 = PositionCodec(types.PositionEncodingKind.Utf16)


def test_a_column_is_counted_in_the_negotiated_code_units() -> None:
    line = 'x = "é😀"; import os'
    column = line.index("os") + 1  # as the engine counts: code points, from 1
    for kind, codec in (("utf-16-le", UTF16), ("utf-8", PositionCodec(types.PositionEncodingKind.Utf8))):
        width = 2 if kind == "utf-16-le" else 1
        assert client_column(line, column, codec.client_num_units) == len(line[: column - 1].encode(kind)) // width
    back = UTF16.position_from_client_units([line], types.Position(0, client_column(line, column, UTF16.client_num_units)))
    assert back.character + 1 == column


def code_point_column(line: str, character: int) -> int:
    """The 1-based code-point column of a UTF-16 `character` in `line`, as pygls reads a client's."""
    return UTF16.position_from_client_units([line], types.Position(0, character)).character + 1 if line else 1


def _apply(old: str, start: tuple[int, int], end: tuple[int, int], text: str) -> str:
    lines = old.splitlines(keepends=True) or [""]
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(position: tuple[int, int]) -> int:
        row, units = position
        line = lines[row] if row < len(lines) else ""
        return offsets[min(row, len(lines))] + code_point_column(line, units) - 1

    return old[: at(start)] + text + old[at(end):]


@given(
    st.text(alphabet="ab\r\n😀é", max_size=12),
    st.text(alphabet="ab\r\n😀é", max_size=12),
)
@example("a\r\nb", "a\rb")  # the edit never starts between \r and \n
@example("a\r\nb", "a\nb")  # nor ends there
@example("\r\n", "\r")
def test_the_edit_between_two_texts_turns_one_into_the_other(old: str, new: str) -> None:
    edit = edit_between(old, new, UTF16.client_num_units)
    if old == new:
        assert edit is None
        return
    assert edit is not None
    # Lines as the protocol counts them are the ones splitlines gives for these breaks.
    assert len(lines_of(old)) == len(old.splitlines()) + (1 if not old or old.endswith(("\n", "\r")) else 0)
    assert _apply(old, edit.start, edit.end, edit.text) == new


def test_a_buffer_is_written_in_the_encoding_its_cookie_names(tmp_path: Path) -> None:
    text = '# -*- coding: latin-1 -*-\nx = "é"\n'
    buffer = Buffer("file:///x.py", tmp_path / "x.py", text, 1)
    assert buffer.data == text.encode("latin-1")
    unspellable = Buffer("file:///x.py", tmp_path / "x.py", text.replace("é", "😀"), 1)
    assert unspellable.data == unspellable.text.encode("utf-8")  # the cookie cannot spell it: as the editor would save it


def test_a_linked_module_keeps_its_own_path_and_a_linked_folder_is_resolved(tmp_path: Path) -> None:
    from import_policy.server.documents import path_of, uri_of

    real = tmp_path / "real"
    (real / "pkg").mkdir(parents=True)
    (real / "pkg" / "impl.py").write_text("import pickle\n", encoding="utf-8")
    (real / "pkg" / "fast.py").symlink_to("impl.py")
    (tmp_path / "work").symlink_to(real)  # a workspace opened through a link
    # Python imports `pkg.fast` from the link's path, and `check` reports there.
    assert path_of(uri_of(tmp_path / "work" / "pkg" / "fast.py")) == real / "pkg" / "fast.py"
    assert path_of(uri_of(real / "pkg" / "impl.py")) == real / "pkg" / "impl.py"
