"""Every pattern a built-in preset ships compiles: a preset's token regexes are not compiled
when it loads (kinds.cfamily), so this test is what stands for that check."""

from __future__ import annotations

import pytest
import regex  # type: ignore[import-untyped, unused-ignore]

import yaml

from import_policy.policy.load import presets, preset_text


def _token_patterns(name: str) -> list[str]:
    text = preset_text(name)
    assert text is not None
    document = yaml.safe_load(text)
    return [
        str(pattern)
        for rule in document.get("rules") or []
        if rule.get("kind") == "token"
        for pattern in rule.get("forbid") or []
    ]


def test_some_preset_has_token_rules() -> None:
    assert any(_token_patterns(name) for name in presets())


@pytest.mark.parametrize("name", presets())
def test_every_token_pattern_of_a_preset_compiles(name: str) -> None:
    for pattern in _token_patterns(name):
        regex.compile(pattern, regex.MULTILINE)


def test_a_bad_pattern_in_a_users_file_is_still_refused() -> None:
    from pathlib import Path
    import tempfile

    from import_policy.policy.load import ConfigErrors, load

    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "import-policy.yaml"
        config.write_text("version: 1\nrules:\n  - id: t\n    kind: token\n    forbid: ['(unclosed']\n", encoding="utf-8")
        with pytest.raises(ConfigErrors) as raised:
            load(config, Path(folder))
    assert "bad regular expression '(unclosed'" in str(raised.value)
