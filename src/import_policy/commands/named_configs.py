"""Configuration files named on the command line (contract section 7): the pre-commit hooks
also run on a commit that changes only `import-policy.yaml`, `.import-policy.yaml`, a
`pyproject.toml` or a file an `extends` names. Such a file is not a source file: each
configuration it can be part of is loaded, so a broken one fails the commit (exit 2, at its
file and line), and a YAML or TOML file no configuration reads is passed over."""

from __future__ import annotations

import os
from pathlib import Path

from import_policy.policy.load import CONFIG_NAMES, load
from import_policy.policy.nearest import Found, Nearest, same

SUFFIXES = (".yaml", ".yml", ".toml")


def is_configuration_like(path: Path) -> bool:
    """A YAML or TOML file named: never a source file to check."""
    return path.name.lower().endswith(SUFFIXES) and os.path.isfile(path)


def validate(named: list[Path], cwd: Path) -> None:
    """Load every configuration each named file can be part of (`ConfigErrors` for a broken
    one): its folder's nearest configuration upward (the file itself, the pyproject.toml
    naming it, or a configuration above), and for a file of another name (a base an
    `extends` names) every configuration below its folder that reads it."""
    from import_policy.commands.configs import found_configurations

    nearest = Nearest(cwd)
    loaded: list[Found] = []
    for path in named:
        folder = os.path.dirname(os.path.abspath(path))
        candidates = [nearest.of_folder(folder)]
        if path.name not in (*CONFIG_NAMES, "pyproject.toml"):
            candidates += found_configurations([Path(folder)], cwd)[0]
        for found in candidates:
            if found is None or any(same(found, other) for other in loaded):
                continue
            loaded.append(found)
            load(None, cwd, start=found[1])
