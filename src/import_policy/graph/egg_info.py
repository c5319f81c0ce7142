"""What a legacy distribution tells of itself, as importlib.metadata reads it (never imported).

Three layouts describe a distribution by an `.egg-info` instead of a `.dist-info`:
- an `.egg-info` folder in a path folder: `NAME-VER-pyX.Y.egg-info` in site-packages, as `pip
  install` of an sdist leaves it without building a wheel (its `installed-files.txt` lists the
  installed files relative to the `.egg-info` folder), or `NAME.egg-info` in the source folder of
  a `setup.py develop` (legacy editable) install, which `easy-install.pth` adds to the path
  (no file list: its modules are those `top_level.txt` names, in the folder holding it);
- a distutils `.egg-info` FILE (PKG-INFO itself: no file list, no `top_level.txt`);
- an `.egg` on the path (an `easy-install.pth` line adds it), whose `EGG-INFO/top_level.txt`
  names its modules; a folder (whatever it holds is the egg's) or a zip archive (Python's
  zipimport reads it; the graph does not).
"""

from __future__ import annotations

import os
import zipfile
from typing import NamedTuple

from import_policy.graph.search_path import file_text


class Told(NamedTuple):
    name: str  # as the entry's name spells it
    version: str
    record: tuple[str, ...]  # installed files, relative to the folder holding the entry, `/`-separated
    listed: tuple[str, ...]  # top-level names `top_level.txt` gives
    read: tuple[str, ...]  # the files read, whose stat data stands for what they tell


def egg_info(info: str, folder: str, name: str, is_file: bool) -> Told:
    """An `.egg-info` folder or file in the path folder `folder`."""
    version = _version(os.path.basename(info).rpartition(".")[0])
    if is_file:
        return Told(name, version, (), (), (info,))
    installed = os.path.join(info, "installed-files.txt")
    record = tuple(_relative(os.path.join(info, line.strip()), folder)
                   for line in file_text(installed).splitlines() if line.strip())
    top_level = os.path.join(info, "top_level.txt")
    return Told(name, version, record, top_level_names(top_level), (installed, top_level, os.path.join(info, "PKG-INFO")))


def egg_folder(egg: str, name: str) -> Told:
    """An `.egg` folder on the path: its `EGG-INFO`."""
    top_level = os.path.join(egg, "EGG-INFO", "top_level.txt")
    version = _version(os.path.basename(egg).rpartition(".")[0])
    return Told(name, version, (), top_level_names(top_level), (top_level, os.path.join(egg, "EGG-INFO", "PKG-INFO")))


def zipped_egg(archive: str) -> Told:
    """An `.egg` zip archive on the path: its `EGG-INFO/top_level.txt`, read from the archive."""
    stem = os.path.basename(archive).rpartition(".")[0]
    try:
        with zipfile.ZipFile(archive) as opened:
            text = opened.read("EGG-INFO/top_level.txt").decode("utf-8", "replace")
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        text = ""
    listed = tuple(line.strip().replace("/", ".") for line in text.splitlines() if line.strip())
    return Told(stem.partition("-")[0], _version(stem), (), listed, (archive,))


def is_zipped_egg(path: str) -> bool:
    """Whether a file on the path is an `.egg` archive that holds `EGG-INFO` (importlib finds it)."""
    if not path.lower().endswith(".egg"):
        return False
    try:
        with zipfile.ZipFile(path) as opened:
            return any(member.lower().startswith("egg-info/") for member in opened.namelist())
    except (OSError, ValueError, zipfile.BadZipFile):
        return False


def _version(stem: str) -> str:
    """`NAME-VER-pyX.Y` -> VER."""
    parts = stem.split("-")
    return parts[1] if len(parts) > 1 else ""


def _relative(path: str, folder: str) -> str:
    """A listed file relative to `folder` (`../...` outside it), `/`-separated."""
    relative = os.path.relpath(os.path.normpath(path.replace("\\", os.sep)), folder)
    return relative.replace(os.sep, "/")


def top_level_names(path: str) -> tuple[str, ...]:
    """The names a `top_level.txt` lists, `/` read as `.` (none where it cannot be read)."""
    return tuple(line.strip().replace("/", ".") for line in file_text(path).splitlines() if line.strip())


__all__ = ["Told", "egg_folder", "egg_info", "is_zipped_egg", "top_level_names", "zipped_egg"]
