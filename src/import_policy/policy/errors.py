"""The one exception a configuration's faults travel in, apart from the loader: the command
line catches it on every run, and importing the loader (the policy's records) for that alone
would cost `--version` and `--help` most of their time."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from import_policy.config.validate import ConfigError


class ConfigErrors(Exception):
    def __init__(self, errors: list[ConfigError]) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors
