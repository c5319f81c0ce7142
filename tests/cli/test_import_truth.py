"""bench/import_truth.py over a generated environment: Python's answer (the real importer, not
an availability test's `find_spec`) and the tool's, each entry answered as if imported alone,
also when one run answers several entries (`--together`) that reach the same dependency site."""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]

PACKAGES = {
    "shared/__init__.py": "import heavy_x\n",
    "heavy_x/__init__.py": "",
    "heavy_y/__init__.py": "",
    "loads_y/__init__.py": "import heavy_y\n",
    "entry_one/__init__.py": "import shared\n",
    "entry_two/__init__.py": "import shared\n",
    # An availability test asks the finders for `heavy_y`; the import is `loads_y`'s.
    "entry_probe/__init__.py": "import importlib.util\nimportlib.util.find_spec('heavy_y')\nimport loads_y\n",
}


@pytest.fixture(scope="module")
def truth() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_truth", REPO / "bench" / "import_truth.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_truth"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _venv(root: Path) -> Path:
    """A venv of this interpreter whose site-packages holds PACKAGES, one distribution each."""
    venv = root / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    (venv / "pyvenv.cfg").write_text(
        f"home = {Path(sys.base_prefix) / 'bin'}\ninclude-system-site-packages = false\nversion = {version}\n")
    site = venv / "lib" / f"python{version}" / "site-packages"
    for relative, text in PACKAGES.items():
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        top = relative.partition("/")[0]
        info = site / f"{top}-1.0.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {top}\nVersion: 1.0\n")
        (info / "RECORD").write_text(f"{relative},,\n{info.name}/RECORD,,\n")
    return venv


def test_the_real_importer_is_the_import_not_the_availability_test(truth: ModuleType, tmp_path: Path) -> None:
    venv = _venv(tmp_path)
    answer = truth.python_truth(str(venv / "bin" / "python"), "entry_probe")
    assert answer["error"] is None
    assert "heavy_y" in answer["loaded"]
    assert answer["importers"]["heavy_y"] == "loads_y:1"


@pytest.mark.slow
@pytest.mark.parametrize("together", [False, True])
def test_each_entry_is_answered_as_imported_alone(
    truth: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str], together: bool,
) -> None:
    """Two entries reach the same dependency site (`shared`'s `import heavy_x`): each is
    told it loads `heavy_x`, in one run as in two."""
    venv = _venv(tmp_path)
    tool = f"{shlex.quote(sys.executable)} -m import_policy"
    argv = ["--venv", str(venv), "--entries", "entry_one,entry_two,entry_probe", "--watched", "heavy_x,heavy_y,shared",
            "--tool", tool, "--keep", str(tmp_path / "probe"), *(["--together"] if together else [])]
    assert truth.main(argv) == 0
    out = capsys.readouterr().out
    assert "| entry_one | 2 | 0 | 0 | 1 | 1.00 | 1.00 |" in out
    assert "| entry_two | 2 | 0 | 0 | 1 | 1.00 | 1.00 |" in out
    assert "| entry_probe | 1 | 0 | 0 | 2 | 1.00 | 1.00 |" in out
    assert out.rstrip().endswith("Disagreements:")
