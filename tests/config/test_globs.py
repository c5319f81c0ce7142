"""Path globs: a glob without a wildcard is compared, not compiled, with the same answers."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from import_policy.patterns import PathGlob

PATHS = ["vllm/envs.py", "vllm/envs.py/x", "vllm/envs.pyc", "vllm/envs", "vllm", "vllm/", "a/vllm/envs.py",
         "build", "build/x/y.py", "builder/x.py", "tests/a b.py", "tests/a b.py/\nz", ""]


@pytest.mark.parametrize("text", ["vllm/envs.py", "build/", "build", "tests/a b.py", "a.b+c(d)/e$.py"])
def test_a_literal_glob_matches_the_path_and_what_is_below_it(text: str) -> None:
    glob = PathGlob.compile(text)
    assert glob.literal is not None
    body = text.rstrip("/")
    for path in [*PATHS, body, body + "/inner.py"]:
        assert glob.matches(path) == (glob.regex.fullmatch(path) is not None), path
    assert glob.matches(body) and glob.matches(body + "/inner.py")
    assert not glob.matches(body + "x")


def test_wildcard_globs_are_compiled_at_their_first_match() -> None:
    glob = PathGlob.compile("vllm/**/*.py")
    assert glob.literal is None and "regex" not in vars(glob)
    assert glob.matches("vllm/a/b.py") and not glob.matches("tests/a.py")


_segment = st.text(alphabet="ab.-_ +", min_size=1, max_size=4).filter(lambda s: s not in (".", ".."))


@given(st.lists(_segment, min_size=1, max_size=3), st.booleans(), st.lists(_segment, min_size=1, max_size=4))
def test_literal_and_compiled_agree(parts: list[str], folder: bool, path_parts: list[str]) -> None:
    text = "/".join(parts) + ("/" if folder else "")
    glob = PathGlob.compile(text)
    for path in ("/".join(path_parts), "/".join(parts), "/".join(parts + path_parts)):
        assert glob.matches(path) == (glob.regex.fullmatch(path) is not None)
