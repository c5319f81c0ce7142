"""Availability tests judged from the environment (contract section 4, "Whatever is installed,
unless asked"): `importlib.util.find_spec("x")`, `importlib.metadata.version("x")` in a `try:`,
and functions whose every return is such a test (peft's `is_bnb_available()`, transformers'
`_is_package_available("x")` in its 4.x shape with cached module-level flags and its 5.x shape
returning a tuple). Each layout is generated here and Python imports it in a subprocess over
the same folders; the tool's answer is compared with what loads."""

from __future__ import annotations

import pytest

from conftest import Project
from envlayout import Env, forbid_each, python_loads, reported

UTILS = """\
import importlib.metadata
import importlib.util


def is_bnb_available():
    return importlib.util.find_spec("bnb") is not None


def is_present_available():
    return importlib.util.find_spec("present") is not None


def _is_package_available(pkg_name, return_version=False):
    package_exists = importlib.util.find_spec(pkg_name) is not None
    package_version = "N/A"
    if package_exists:
        try:
            package_version = importlib.metadata.version(pkg_name)
        except importlib.metadata.PackageNotFoundError:
            package_exists = False
    if return_version:
        return package_exists, package_version
    else:
        return package_exists


def _is_package_available5(pkg_name: str, return_version: bool = False):
    spec = importlib.util.find_spec(pkg_name)
    package_exists = spec is not None
    package_version = "N/A"
    if package_exists and return_version:
        try:
            package_version = importlib.metadata.version(pkg_name)
        except importlib.metadata.PackageNotFoundError:
            package_exists = False
    if return_version:
        return package_exists, package_version
    else:
        return package_exists, None


_bnb_available = _is_package_available("bnb")
_present_available = _is_package_available("present")


def is_bitsandbytes_available():
    return _bnb_available


def is_present_cached():
    return _present_available


def is_kenlm_available():
    return _is_package_available5("kenlm")[0]


def is_present5():
    is_available, version = _is_package_available5("present", return_version=True)
    return is_available and version != ""
"""

INIT = """\
import importlib.metadata
import importlib.util
from importlib.util import find_spec

from .import_utils import (
    is_bitsandbytes_available, is_bnb_available, is_kenlm_available, is_present5, is_present_available,
    is_present_cached,
)

if is_bnb_available():
    import h_a
if is_present_available():
    import h_b
else:
    import h_c
if is_bitsandbytes_available():
    import h_d
if not is_bitsandbytes_available():
    import h_dd
if is_present_cached():
    import h_pc
if is_kenlm_available():
    import h_e
if is_present5():
    import h_f
if find_spec("bnb"):
    import h_g
if importlib.util.find_spec("bnb") is None:
    import h_h
try:
    importlib.metadata.version("bnb")
    import h_i
except importlib.metadata.PackageNotFoundError:
    pass
try:
    importlib.metadata.version("present")
    import h_j
except Exception:
    pass
"""

PROJECT = """\
import importlib.util

import peftish


def has_bnb():
    return importlib.util.find_spec("bnb") is not None


if has_bnb():
    import h_k
elif importlib.util.find_spec("present") is not None:
    import h_l
"""

WATCHED = sorted(["h_a", "h_b", "h_c", "h_d", "h_dd", "h_pc", "h_e", "h_f", "h_g", "h_h", "h_i", "h_j", "h_k", "h_l"])


@pytest.fixture
def probed(project: Project, monkeypatch: pytest.MonkeyPatch) -> tuple[Project, Env]:
    """`peftish` tests whether `bnb` and `kenlm` (not installed) and `present` (installed) are."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    env = Env(project.root)
    env.install("peftish", {"peftish/__init__.py": INIT, "peftish/import_utils.py": UTILS})
    env.install("present", {"present/__init__.py": ""})
    project.write("mypkg/__init__.py", PROJECT)
    env.install("standins", {f"{name}.py": "" for name in WATCHED})  # installed: a `try:` of one succeeds
    return project, env


def test_availability_tests_are_judged_from_the_environment(probed: tuple[Project, Env]) -> None:
    project, env = probed
    loaded = python_loads(env, "mypkg", [project.root])
    truth = {name for name in WATCHED if name in loaded}
    assert truth == {"h_b", "h_dd", "h_pc", "h_f", "h_h", "h_j", "h_l"}
    project.config(forbid_each(WATCHED, "mypkg", "    installed: environment\n"))
    assert reported(project.lines("--no-cache"), WATCHED) == truth
    assert reported(project.lines(), WATCHED) == truth


def test_by_default_every_branch_counts(probed: tuple[Project, Env]) -> None:
    """Whatever is installed: no availability test keeps a branch off."""
    project, _ = probed
    project.config(forbid_each(WATCHED, "mypkg"))
    assert reported(project.lines("--no-cache"), WATCHED) == set(WATCHED)


# `importlib.metadata.version(NAME)` for each NAME, as its distribution is laid out below (or not).
QUERIES = {
    "foo-bar": "version", "FOO.bar": "distribution", "foo__bar": "metadata",  # Foo_Bar-1.0.dist-info
    "foobar": "version",  # no such distribution
    "legacy-pkg": "version", "Legacy.Pkg": "metadata",  # an .egg-info folder in site-packages
    "old-file": "version",  # an .egg-info file (distutils' PKG-INFO) in site-packages
    "dev_pkg": "version",  # an .egg-info folder in a folder a .pth file adds (`setup.py develop`)
    "Egg.Pkg": "version", "egg-pkg": "version",  # an .egg folder a .pth adds: its name is compared lowercased only
    "odd": "version", "odd-name": "version",  # `odd-name-1.0.dist-info`: the name ends at the first `-`
    "ghost": "version",  # an .egg-info in a folder no .pth adds
}


def _metadata_layout(project: Project, env: Env) -> list[str]:
    """The layout, and the watched names: `h_N` is imported where NAME number N is found."""
    env.install("Foo_Bar", {"foo_bar/__init__.py": ""})
    pkg_info = "Metadata-Version: 1.0\nName: {name}\nVersion: 1.0\n"
    egg_info = env.lib / "Legacy_Pkg-2.0-py3.11.egg-info"
    egg_info.mkdir()
    (egg_info / "PKG-INFO").write_text(pkg_info.format(name="Legacy-Pkg"))
    (egg_info / "top_level.txt").write_text("legacy_pkg\n")
    (env.lib / "old_file-1.0-py3.11.egg-info").write_text(pkg_info.format(name="old-file"))
    project.write("devsrc/dev_pkg.egg-info/PKG-INFO", pkg_info.format(name="dev-pkg"))
    (env.lib / "dev-pkg.pth").write_text(f"{project.root / 'devsrc'}\n")
    project.write(".venv/lib/python3.11/site-packages/Egg.Pkg-1.0-py3.11.egg/EGG-INFO/PKG-INFO", pkg_info.format(name="Egg.Pkg"))
    (env.lib / "easy-install.pth").write_text("./Egg.Pkg-1.0-py3.11.egg\n")
    odd = env.lib / "odd-name-1.0.dist-info"
    odd.mkdir()
    (odd / "METADATA").write_text(pkg_info.format(name="odd-name"))
    project.write("elsewhere/ghost.egg-info/PKG-INFO", pkg_info.format(name="ghost"))
    watched = [f"h_{index}" for index in range(len(QUERIES))]
    env.install("standins", {f"{name}.py": "" for name in watched})
    body = "".join(
        f"try:\n    importlib.metadata.{call}({name!r})\n    import h_{index}\nexcept importlib.metadata.PackageNotFoundError:\n    pass\n"
        for index, (name, call) in enumerate(QUERIES.items())
    )
    project.write("mypkg/__init__.py", "import importlib.metadata\n" + body)
    return watched


def test_distributions_are_found_as_importlib_metadata_finds_them(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """`.dist-info` and `.egg-info` (folders and files), in site-packages and in folders `.pth`
    files add, and `.egg` folders; names compared as importlib.metadata compares them."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    env = Env(project.root)
    watched = _metadata_layout(project, env)
    loaded = python_loads(env, "mypkg", [project.root])
    truth = {name for name in watched if name in loaded}
    found = {query for index, query in enumerate(QUERIES) if f"h_{index}" in truth}
    assert found == {"foo-bar", "FOO.bar", "foo__bar", "legacy-pkg", "Legacy.Pkg", "old-file", "dev_pkg", "Egg.Pkg", "odd"}
    project.config(forbid_each(watched, "mypkg", "    installed: environment\n"))
    assert reported(project.lines("--no-cache"), watched) == truth
    assert reported(project.lines(), watched) == truth
