"""Generated environments for the tests of `follow:`: a venv-like folder (pyvenv.cfg, `lib` and
`lib64` site-packages, dist-infos, `.pth` files, a setuptools editable finder, the legacy
layouts: `.egg-info` folders and files, `setup.py develop`, `.egg` folders and zips), and Python's own
answer of what importing a module loads there, from a subprocess whose `sys.path` is built by
`site.addsitedir` over the same folders (so `.pth` files, `import` lines and finders run as
Python runs them)."""

from __future__ import annotations

import json
import subprocess
import zipfile
import sys
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path

VERSION = "python3.11"

# What setuptools writes for an editable install (`__editable___NAME_finder.py`), cut to the
# part Python runs here: a meta path finder over MAPPING, installed by the `.pth` line.
FINDER = '''\
import sys
from importlib.util import spec_from_file_location
from pathlib import Path

MAPPING: dict[str, str] = {mapping!r}
NAMESPACES: dict[str, list[str]] = {{}}


class _EditableFinder:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname in MAPPING:
            candidate = Path(MAPPING[fullname])
            for file in (candidate / "__init__.py", candidate.with_suffix(".py")):
                if file.exists():
                    return spec_from_file_location(fullname, file)
        return None


def install():
    if not any(finder == _EditableFinder for finder in sys.meta_path):
        sys.meta_path.append(_EditableFinder)
'''


class Env:
    """A venv-like folder under `root/.venv`."""

    def __init__(self, root: Path, lib64: bool = True) -> None:
        self.root = root
        self.prefix = root / ".venv"
        self.prefix.mkdir(parents=True, exist_ok=True)
        (self.prefix / "pyvenv.cfg").write_text("home = /usr/bin\nversion_info = 3.11.7.final.0\n")
        self.lib = self.prefix / "lib" / VERSION / "site-packages"
        self.lib64 = self.prefix / "lib64" / VERSION / "site-packages"
        self.lib.mkdir(parents=True, exist_ok=True)
        if lib64:
            self.lib64.mkdir(parents=True, exist_ok=True)

    @property
    def sites(self) -> list[Path]:
        return [site for site in (self.lib, self.lib64) if site.is_dir()]

    def install(
        self, name: str, files: Mapping[str, str], *, site: Path | None = None, version: str = "1.0",
        record: bool = True, top_level: Iterable[str] | None = None, extra: Iterable[str] = (),
    ) -> Path:
        """A distribution's files and its dist-info: RECORD (listing its files and `extra`)
        unless `record` is false, `top_level.txt` when given."""
        where = site or self.lib
        for relative, text in files.items():
            path = where / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        info = where / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        if record:
            rows = [f"{relative},sha256=x,1" for relative in [*files, *extra]] + [f"{info.name}/RECORD,,"]
            (info / "RECORD").write_text("\n".join(rows) + "\n")
        if top_level is not None:
            (info / "top_level.txt").write_text("".join(f"{top}\n" for top in top_level))
        return info

    def editable(self, name: str, mapping: Mapping[str, str], source: Mapping[str, str]) -> None:
        """A setuptools editable install: the sources outside site-packages, a finder module
        mapping each top-level name to its folder, and the `.pth` line that installs it."""
        for relative, text in source.items():
            path = self.root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        absolute = {top: str(self.root / folder) for top, folder in mapping.items()}
        finder = f"__editable___{name}_1_0_finder.py"
        pth = f"__editable__.{name}-1.0.pth"
        self.install(name, {
            finder: FINDER.format(mapping=absolute),
            pth: f"import __editable___{name}_1_0_finder; __editable___{name}_1_0_finder.install()\n",
        })

    def path_pth(self, name: str, folder: str, source: Mapping[str, str]) -> None:
        """An editable install as hatchling, flit and pdm write it: a `.pth` naming the source folder."""
        for relative, text in source.items():
            path = self.root / folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        self.install(name, {f"_{name}.pth": f"{self.root / folder}\n"})

    # --- legacy layouts (an `.egg-info` or an `.egg`, no `.dist-info`) ---------------------

    def _pkg_info(self, name: str, version: str) -> str:
        return f"Metadata-Version: 1.0\nName: {name}\nVersion: {version}\n"

    def _easy_install(self, line: str) -> None:
        with (self.lib / "easy-install.pth").open("a") as handle:
            handle.write(line + "\n")

    def _write(self, where: Path, files: Mapping[str, str]) -> None:
        for relative, text in files.items():
            path = where / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))

    def sdist(self, name: str, files: Mapping[str, str], *, version: str = "1.0", installed: bool = True,
              top_level: Iterable[str] | None = None) -> Path:
        """`pip install` of an sdist without building a wheel: the files, and a
        `NAME-VER-py3.11.egg-info` folder whose `installed-files.txt` lists them relative to it."""
        self._write(self.lib, files)
        info = self.lib / f"{name.replace('-', '_')}-{version}-py3.11.egg-info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "PKG-INFO").write_text(self._pkg_info(name, version))
        if top_level is not None:
            (info / "top_level.txt").write_text("".join(f"{top}\n" for top in top_level))
        if installed:
            rows = [f"../{relative}" for relative in files] + ["PKG-INFO", "top_level.txt", "../../../../bin/script"]
            (info / "installed-files.txt").write_text("\n".join(rows) + "\n")
        return info

    def develop(self, name: str, folder: str, source: Mapping[str, str], top_level: Iterable[str]) -> Path:
        """`setup.py develop` (legacy editable): the sources in `folder` (under the root) with
        `NAME.egg-info` beside them, an `.egg-link` and the `easy-install.pth` line adding `folder`."""
        where = self.root / folder
        self._write(where, source)
        info = where / f"{name.replace('-', '_')}.egg-info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "PKG-INFO").write_text(self._pkg_info(name, "1.0"))
        (info / "SOURCES.txt").write_text("".join(f"{folder}/{relative}\n" for relative in source))
        (info / "top_level.txt").write_text("".join(f"{top}\n" for top in top_level))
        (self.lib / f"{name}.egg-link").write_text(f"{where}\n.")
        self._easy_install(str(where))
        return info

    def distutils(self, name: str, files: Mapping[str, str], version: str = "1.0") -> Path:
        """A distutils install: the files and a `NAME-VER-py3.11.egg-info` FILE (PKG-INFO, no file list)."""
        self._write(self.lib, files)
        info = self.lib / f"{name.replace('-', '_')}-{version}-py3.11.egg-info"
        info.write_text(self._pkg_info(name, version))
        return info

    def egg(self, name: str, files: Mapping[str, str], top_level: Iterable[str] | None = None,
            zipped: bool = False) -> Path:
        """easy_install's `.egg` (a folder, or a zip archive) in site-packages, which an
        `easy-install.pth` line adds to the path: its files and `EGG-INFO`."""
        egg = self.lib / f"{name}-1.0-py3.11.egg"
        inside = {relative: textwrap.dedent(text) for relative, text in files.items()}
        inside["EGG-INFO/PKG-INFO"] = self._pkg_info(name, "1.0")
        if top_level is not None:
            inside["EGG-INFO/top_level.txt"] = "".join(f"{top}\n" for top in top_level)
        if zipped:
            with zipfile.ZipFile(egg, "w") as archive:
                for relative, text in inside.items():
                    archive.writestr(relative, text)
        else:
            self._write(egg, inside)
        self._easy_install(f"./{egg.name}")
        return egg


PROBE = """\
import json, site, sys
before = set(sys.modules)
for folder in {sites!r}:
    site.addsitedir(folder)
sys.path[:0] = {front!r}
sys.path.extend({back!r})
try:
    import {entry}
    error = None
except Exception as exc:
    error = type(exc).__name__
print(json.dumps({{"loaded": sorted(set(sys.modules) - before), "error": error}}))
"""


def python_loads(env: Env, entry: str, front: Iterable[Path], back: Iterable[Path] = ()) -> set[str]:
    """The modules Python loads importing `entry`, with the project's root (`front`) first on
    `sys.path`, the environment's site-packages as `site` adds them, then `back` (stand-ins)."""
    script = PROBE.format(
        sites=[str(site) for site in env.sites], front=[str(p) for p in front], back=[str(p) for p in back], entry=entry,
    )
    done = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True, text=True, check=True, cwd=env.root)
    answer = json.loads(done.stdout)
    assert answer["error"] is None, answer
    return set(answer["loaded"])


METADATA = """\
import importlib.metadata, json, site
for folder in {sites!r}:
    site.addsitedir(folder)
found = {{}}
for name in {names!r}:
    try:
        found[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        found[name] = None
print(json.dumps(found))
"""


def python_versions(env: Env, names: Iterable[str]) -> dict[str, str | None]:
    """What `importlib.metadata.version(name)` answers for each name in the environment (None: not found)."""
    script = METADATA.format(sites=[str(site) for site in env.sites], names=list(names))
    done = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True, text=True, check=True, cwd=env.root)
    answer: dict[str, str | None] = json.loads(done.stdout)
    return answer


def rule_id(name: str) -> str:
    return "no-" + name.replace(".", "-").replace("_", "-").lower()


def forbid_each(names: Iterable[str], entry: str, extra: str = "") -> str:
    """A policy with one import-time rule per watched name, following every distribution."""
    rules = "".join(
        f"  - id: {rule_id(name)}\n    kind: import-time\n    entry: [{entry}]\n    forbid: [{name}]\n{extra}"
        for name in names
    )
    return f"version: 1\nenvironment:\n  python: .venv/bin/python\nfollow: all\nrules:\n{rules}"


def reported(lines: Iterable[str], names: Iterable[str]) -> set[str]:
    """The watched names the tool's findings say the entry loads."""
    found = set()
    for name in names:
        rule = f" {rule_id(name)} "
        if any(rule in line for line in lines):
            found.add(name)
    return found
