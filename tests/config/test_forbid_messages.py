"""Per-name messages in one rule (`forbid` entries `{name: PATTERN, message: TEXT}`) and the
`{name}` / `{pattern}` placeholders: flake8's five-entry ban table as one rule."""

from __future__ import annotations

from conftest import Project

BAN_TABLE = """\
rules:
  - id: banned-api
    message: "`{name}` is banned (matched `{pattern}`)"
    forbid:
      - {name: typing.TypedDict, message: "Use typing_extensions.TypedDict instead."}
      - {name: "cgi.*", message: "`{name}`: cgi is removed in 3.13"}
      - six
      - {name: attrs}
      - name: requests.get
        message: "Use the session: `{pattern}` opens a connection per call."
"""


def test_each_entry_speaks_for_the_names_it_decides(project: Project) -> None:
    project.config(BAN_TABLE)
    project.write(
        "a.py",
        "import six.moves\nfrom typing import TypedDict, List\nimport cgi.log\nimport attrs\n"
        "import typing\ntyping.TypedDict\nimport requests\nrequests.get('x')\n",
    )
    assert project.lines() == [
        "a.py:1:8: banned-api `six.moves` is banned (matched `six`)",
        "a.py:2:20: banned-api Use typing_extensions.TypedDict instead.",
        "a.py:3:8: banned-api `cgi.log`: cgi is removed in 3.13",
        "a.py:4:8: banned-api `attrs` is banned (matched `attrs`)",
        "a.py:6:1: banned-api Use typing_extensions.TypedDict instead.",
        "a.py:8:1: banned-api Use the session: `requests.get` opens a connection per call.",
    ]


def test_placeholders_in_the_rules_own_message(project: Project) -> None:
    project.config("rules:\n  - id: p\n    message: 'no {name} ({pattern}); {other} stays'\n    forbid: [pickle]\n")
    project.write("a.py", "import pickle.util\n")
    assert project.lines() == ["a.py:1:8: p no pickle.util (pickle); {other} stays"]


def test_without_any_message_the_default_names_the_name(project: Project) -> None:
    project.config("rules:\n  - id: p\n    forbid: [{name: pickle}]\n")
    project.write("a.py", "import pickle\n")
    assert project.lines() == ["a.py:1:8: p `pickle` is forbidden"]


def test_an_except_still_carves_out_of_a_map_entry(project: Project) -> None:
    project.config("rules:\n  - id: r\n    forbid: [{name: re, message: 'use regex'}]\n    except: [re._parser]\n")
    project.write("a.py", "from re import _parser, sub\n")
    assert project.lines() == ["a.py:1:6: r use regex"]  # a forbidden module: once, at its name


def test_bad_entries_are_configuration_errors_with_lines(project: Project) -> None:
    project.config("rules:\n  - id: x\n    forbid:\n      - {message: hi}\n      - {name: 3, mesage: x}\n      - {name: 'a..b'}\n")
    code, _, err = project.run("check")
    assert code == 2
    assert err.splitlines()[:-1] == [
        "import-policy: import-policy.yaml:4: a forbid entry written as a map needs a name: {name: PATTERN, message: TEXT}",
        "import-policy: import-policy.yaml:5: unknown key 'mesage' in a forbid entry (did you mean 'message'?); expected one of: message, name",
        "import-policy: import-policy.yaml:5: each entry of forbid must be a string, got int 3",
        "import-policy: import-policy.yaml:6: bad forbid entry: 'a..b' is not a dotted name: segments hold letters, digits, '_' and '*'",
    ]


def test_explain_shows_the_messages(project: Project) -> None:
    project.config(BAN_TABLE)
    _, out, _ = project.run("explain", "banned-api")
    assert "  forbid:        typing.TypedDict, cgi.*, six, attrs, requests.get\n" in out
    assert "    typing.TypedDict: Use typing_extensions.TypedDict instead.\n" in out


def test_examples_run_with_the_entry_messages(project: Project) -> None:
    project.config(BAN_TABLE + "    examples:\n      flag: ['import six', 'from typing import TypedDict']\n      allow: ['import typing']\n")
    assert project.run("test-rules") == (0, "All 3 examples of 1 rule passed.\n", "")
