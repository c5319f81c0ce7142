from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import regex  # type: ignore[import-untyped, unused-ignore]
from hypothesis import given, settings
from hypothesis import strategies as st

from import_policy.facts.cfamily.scan import (
    Blanked,
    Include,
    TokenMatch,
    TokenTimeout,
    blank,
    find_includes,
    find_tokens,
)


def assert_shape_preserved(original: str, out: str) -> None:
    assert len(out) == len(original)
    for i, (a, b) in enumerate(zip(original, out)):
        if a in "\r\n" or b in "\r\n":
            assert a == b, f"newline mismatch at {i}"
    assert [len(x) for x in out.splitlines()] == [
        len(x) for x in original.splitlines()
    ]


def tokens(code: str, pattern: str) -> list[TokenMatch]:
    return find_tokens(code, regex.compile(pattern))


# --- blank -------------------------------------------------------------------


def test_plain_code_unchanged() -> None:
    src = "int main() { return a / b * c; }\n"
    assert blank(src) == Blanked(code=src, no_comments=src)


def test_block_comment_across_lines() -> None:
    src = "a /* x\nTORCH_LIBRARY\n */ b\n"
    out = blank(src)
    assert out.code == "a     \n             \n    b\n"
    assert out.no_comments == out.code
    assert tokens(out.code, r"\bb\b") == [TokenMatch("b", 3, 5, 3, 6)]


def test_unterminated_block_comment_runs_to_eof() -> None:
    src = "x /* open\nTORCH_LIBRARY"
    assert blank(src).code == "x        \n             "


def test_line_comment() -> None:
    src = "x = 1; // TORCH_LIBRARY\ny"
    assert blank(src).code == "x = 1;                 \ny"


def test_line_comment_continued_by_backslash() -> None:
    src = "a // one \\\nTORCH_LIBRARY\nb\n"
    out = blank(src)
    assert out.code == "a         \n             \nb\n"
    assert tokens(out.code, "TORCH_LIBRARY") == []


def test_line_comment_continuation_crlf() -> None:
    src = "a // one \\\r\nstill comment\r\nb\r\n"
    assert blank(src).code == "a         \r\n             \r\nb\r\n"


def test_double_backslash_before_newline_still_splices() -> None:
    # The last backslash splices; the one before it is just comment text.
    src = "// x \\\\\nhidden\nshown"
    assert blank(src).code == "       \n      \nshown"


def test_string_contents_blanked_quotes_kept() -> None:
    src = 'f("TORCH_LIBRARY"); TORCH_LIBRARY(x)'
    out = blank(src)
    assert out.code == 'f("             "); TORCH_LIBRARY(x)'
    assert out.no_comments == src
    assert tokens(out.code, "TORCH_LIBRARY") == [
        TokenMatch("TORCH_LIBRARY", 1, 21, 1, 34)
    ]


def test_comment_markers_inside_string_are_not_comments() -> None:
    src = 'p = "a//b/*c"; q /* z */;'
    out = blank(src)
    assert out.code == 'p = "       "; q        ;'
    assert out.no_comments == 'p = "a//b/*c"; q        ;'


def test_escaped_quotes_and_backslashes() -> None:
    src = r'a = "x\"TORCH\\"; b = "\\"; c' + "\n"
    assert blank(src).code == 'a = "          "; b = "  "; c\n'


def test_encoding_prefixes() -> None:
    src = 'u8"ab" u"cd" U"ef" L"gh"'
    assert blank(src).code == 'u8"  " u"  " U"  " L"  "'


def test_string_line_continuation() -> None:
    src = 'x = "abc\\\nTORCH_LIBRARY"; y\n'
    assert blank(src).code == 'x = "    \n             "; y\n'


def test_unterminated_string_ends_at_end_of_line() -> None:
    src = 'x = "abc\nTORCH_LIBRARY\n'
    out = blank(src)
    assert out.code == 'x = "   \nTORCH_LIBRARY\n'
    assert tokens(out.code, "TORCH_LIBRARY") == [
        TokenMatch("TORCH_LIBRARY", 2, 1, 2, 14)
    ]


def test_lone_backslash_at_eof_in_string() -> None:
    assert blank('"ab\\').code == '"   '


def test_raw_string_with_custom_delimiter() -> None:
    src = 'auto s = R"xy(a )" TORCH_LIBRARY\n)"\n)xy"; z'
    out = blank(src)
    assert out.code == 'auto s = R"                     \n  \n   "; z'
    assert out.no_comments == src
    assert tokens(out.code, "TORCH_LIBRARY") == []


def test_raw_string_keeps_comment_markers_and_backslashes_literal() -> None:
    src = 'R"(// not /* a comment)" x R"(a\\)" y // c'
    out = blank(src)
    assert out.code == 'R"                     " x R"    " y     '
    assert out.no_comments == 'R"(// not /* a comment)" x R"(a\\)" y     '


def test_raw_string_prefixes() -> None:
    for prefix in ("u8R", "uR", "UR", "LR"):
        src = f'{prefix}"(x"y)" z'
        assert blank(src).code == f'{prefix}"     " z', prefix


def test_identifier_ending_in_r_is_not_a_raw_string() -> None:
    # ``FOOR`` is an identifier, so the string is an ordinary one and the
    # backslash escapes the quote.
    src = 'FOOR"(\\")" x'
    assert blank(src).code == 'FOOR"    " x'


def test_unterminated_raw_string_runs_to_eof() -> None:
    assert blank('R"d(abc\n)"').code == 'R"     \n  '


def test_char_literals() -> None:
    src = "a = '\"'; b = '\\''; c = 'x'; d = \"q\"\n"
    assert blank(src).code == "a = ' '; b = '  '; c = ' '; d = \" \"\n"


def test_char_literal_prefixes() -> None:
    assert blank("u8'a' u'b' U'c' L'd'").code == "u8' ' u' ' U' ' L' '"


def test_digit_separators_are_not_char_literals() -> None:
    src = "int n = 1'000'000; auto h = 0xFF'FF; double d = 1'0.5e+1'0; T x;"
    assert blank(src).code == src


def test_digit_separator_then_real_char_literal() -> None:
    src = "f(1'000, 'x', \"TORCH\");"
    assert blank(src).code == "f(1'000, ' ', \"     \");"


def test_crlf_positions_preserved() -> None:
    src = '/* c\r\n c */ "s"\r\n#include "a.h"\r\nTORCH_LIBRARY(x)\r\n'
    out = blank(src)
    assert_shape_preserved(src, out.code)
    assert_shape_preserved(src, out.no_comments)
    assert tokens(out.code, "TORCH_LIBRARY") == [
        TokenMatch("TORCH_LIBRARY", 4, 1, 4, 14)
    ]
    assert find_includes(out.no_comments) == [Include("a.h", 3, 11, 14, False)]


# --- find_includes -------------------------------------------------------------


def includes(src: str) -> list[Include]:
    return find_includes(blank(src).no_comments)


def test_includes_basic() -> None:
    src = '#include <ATen/ATen.h>\n#include "foo/bar.h"\n'
    assert includes(src) == [
        Include("ATen/ATen.h", 1, 11, 22, True),
        Include("foo/bar.h", 2, 11, 20, False),
    ]


def test_include_spacing_variants() -> None:
    src = "  #  include <a.h>\n# include\t\"b.h\"\n\t#include<c.h>\n"
    assert includes(src) == [
        Include("a.h", 1, 15, 18, True),
        Include("b.h", 2, 12, 15, False),
        Include("c.h", 3, 11, 14, True),
    ]


def test_include_in_comments_not_found() -> None:
    src = (
        "/* #include <x.h> */\n"
        "// #include <y.h>\n"
        "/*\n#include <z.h>\n*/\n"
        "// \\\n#include <w.h>\n"
        "#include <real.h> // trailing\n"
    )
    assert includes(src) == [Include("real.h", 8, 11, 17, True)]


def test_include_after_inline_comment() -> None:
    assert includes("/* c */ #include <a.h>") == [Include("a.h", 1, 19, 22, True)]


def test_include_inside_if_0_is_still_found() -> None:
    src = "#if 0\n#include <dead.h>\n#endif\n"
    assert includes(src) == [Include("dead.h", 2, 11, 17, True)]


def test_not_includes() -> None:
    src = (
        "#include_next <a.h>\n"
        "#include MACRO_HEADER\n"
        'x = "#include <c.h>";\n'
        "int y; #include <d.h>\n"
        "#includefoo <e.h>\n"
    )
    assert includes(src) == []


def test_import_is_an_include() -> None:
    # GCC reads `#import` (include once) in C and C++ too, and includes the header.
    assert [i.path for i in includes("#import <b.h>\n")] == ["b.h"]


# --- find_tokens ---------------------------------------------------------------


def test_tokens_multiline_match_positions() -> None:
    code = "ab\ncd\nef"
    assert tokens(code, r"b\ncd\ne") == [TokenMatch("b\ncd\ne", 1, 2, 3, 2)]


def test_tokens_match_ending_in_newline_ends_on_its_line() -> None:
    assert tokens("xy\nz", r"y\n") == [TokenMatch("y\n", 1, 2, 1, 4)]


def test_tokens_skip_zero_length_matches() -> None:
    assert tokens("a b", r"\b|a") == [TokenMatch("a", 1, 1, 1, 2)]


class _Searches:
    """A compiled pattern that records the timeout of every search made with it, and refuses
    a search without one (which would never end here)."""

    def __init__(self, pattern: str) -> None:
        self.compiled = regex.compile(pattern)
        self.pattern = pattern
        self.timeouts: list[float] = []

    def finditer(self, code: str, *, timeout: float | None = None) -> Iterator[regex.Match[str]]:
        assert timeout is not None, "a search without a timeout"
        self.timeouts.append(timeout)
        return self.compiled.finditer(code, timeout=timeout)


def test_catastrophic_pattern_times_out() -> None:
    """The budget bounds the whole search: one search, given the budget, then the error (counted,
    not timed: the machine may be shared)."""
    pattern = _Searches(r"(a+)+$")
    with pytest.raises(TokenTimeout) as info:
        find_tokens("a" * 5000 + "b", pattern, timeout=0.05)  # type: ignore[arg-type]
    assert pattern.timeouts == [0.05]
    assert info.value.pattern == r"(a+)+$"
    assert isinstance(info.value.__cause__, TimeoutError)


def _cpu_per_call(*sources: str) -> list[float]:
    """CPU seconds of one `blank(src)` for each source, the best of three rounds of at least
    20 ms each, the sources' rounds taken in turn so that a change of load between them weighs
    on each alike: the process's own CPU time, so other processes on the machine do not count.

    Timed, not counted, on purpose: the cost that grows is backtracking inside one `re` match
    (which exposes no step counter), and the number of calls does not show it."""
    best = [float("inf")] * len(sources)
    for _ in range(3):
        for number, src in enumerate(sources):
            calls, started = 0, time.process_time()
            while (spent := time.process_time() - started) < 0.02:
                blank(src)
                calls += 1
            best[number] = min(best[number], spent / calls)
    return best


@pytest.mark.parametrize(
    "unit",
    [
        "1.",  # a version-like run `1.1.1...` (was 54 s at 80 KB)
        "1e+",  # exponent signs inside one pp-number
        ".1",
        "0x1'",  # digit separators, every kind of pp-number character
        "x1.",  # digits inside identifiers never start a number
    ],
)
def test_blank_is_linear_in_the_length_of_a_pp_number(unit: str) -> None:
    # Eight times the input must cost about eight times the work, never sixty-four: the
    # scanner must not start a number again at every digit of one it failed to match.
    def source(size: int) -> str:
        return "int x = " + unit * (size // len(unit)) + "1;\n"

    small, large = _cpu_per_call(source(1_000), source(8_000))
    assert large < 24 * small, (small, large)
    big = source(160_000)
    assert blank(big).code == big  # one number, left as code


def test_numbers_keep_separators_and_never_hide_what_follows() -> None:
    src = "a = 1.2.3'4 + 'c' + 1e+5'0; /* x */ \"s\" 0x1p-3'f"
    assert blank(src).code == "a = 1.2.3'4 + ' ' + 1e+5'0;         \" \" 0x1p-3'f"


# --- properties ----------------------------------------------------------------


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="/*\"'\\\nR()xa1 \r", max_size=80))
def test_blank_preserves_shape(src: str) -> None:
    out = blank(src)
    assert_shape_preserved(src, out.code)
    assert_shape_preserved(src, out.no_comments)
    # Blanking only ever replaces characters by spaces.
    for view in (out.code, out.no_comments):
        assert all(o == s or o == " " for s, o in zip(src, view))
    # ``no_comments`` differs from ``code`` only where ``code`` is blank.
    assert all(c == n or c == " " for c, n in zip(out.code, out.no_comments))
    find_includes(out.no_comments)
