"""libcst's parse of a file's bytes, reading them as CPython does (facts.shared.decoded): libcst
decodes the whole file first, and refuses one CPython compiles with undecodable bytes in a
comment."""

from __future__ import annotations

from typing import TYPE_CHECKING

from import_policy.facts.shared.decoded import python_text

if TYPE_CHECKING:
    import libcst


def parse_module(source: bytes) -> libcst.Module:
    import libcst as cst  # its callers import it already; this module is imported before they parse

    try:
        return cst.parse_module(source)
    except (UnicodeDecodeError, SyntaxError):
        # `SyntaxError`: tokenize's "invalid or missing encoding declaration" for such bytes in
        # the first two lines. A cookie CPython refuses raises again from python_text.
        return cst.parse_module(python_text(source))
