"""Regression tests for crashes and wrong answers the fuzzers and hostile inputs found."""

from __future__ import annotations

from conftest import Project


def test_nul_byte_in_a_parsed_file_is_a_syntax_error(project: Project) -> None:
    # libcst accepts a NUL inside a string or comment; CPython refuses the file, so it cannot
    # be imported: found by tests/pipeline/test_mutations.py (a NUL inserted into rocm_pass.py).
    project.config("version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n")
    project.write_bytes("mod.py", b"import os\nx = 'a\0b'\nimport re\n")
    assert project.lines("mod.py") == [
        "mod.py:2:7: syntax-error the file does not parse: source code cannot contain null bytes (Python 3.15 syntax)",
    ]
    assert project.run("check", "mod.py")[0] == 1


def test_nul_byte_in_a_file_a_rule_parses_has_a_position(project: Project) -> None:
    project.config("version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n")
    project.write_bytes("mod.py", b"import re\n# \xc3\xa9\0\n")
    assert project.lines("mod.py") == [
        "mod.py:2:4: syntax-error the file does not parse: source code cannot contain null bytes (Python 3.15 syntax)",
    ]
    # A file no rule could report in is never parsed, NUL byte or not.
    project.write_bytes("other.py", b"import os\n# \xc3\xa9\0\n")
    assert project.lines("other.py") == []


def test_unknown_coding_cookie_is_a_syntax_error_not_a_crash(project: Project) -> None:
    # libcst's encoding detection raises SyntaxError (tokenize.detect_encoding), which the
    # engine did not expect: an internal error, exit 2. Found by tests/pipeline/test_mutations.py.
    project.config("version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n")
    project.write_bytes("a.py", b"# -*- coding: nonsense -*-\nimport re\n")
    project.write_bytes("b.py", b"\xef\xbb\xbf# -*- coding: latin-1 -*-\nimport re\n")
    project.write_bytes("c.py", b"# -*- coding: nonsense -*-\nimport os\n")  # no rule could fire: never parsed
    code, out, err = project.run("check", "a.py", "b.py", "c.py")
    assert (code, err) == (1, "")
    assert out.splitlines()[:2] == [
        "a.py:1:1: syntax-error the file does not parse: unknown encoding: nonsense (Python 3.15 syntax)",
        "b.py:1:1: syntax-error the file does not parse: encoding problem: iso-8859-1 with BOM (Python 3.15 syntax)",
    ]
