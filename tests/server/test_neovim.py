"""End to end with a real editor: Neovim, headless, started on a file, attaches the server
and reads the diagnostics back (skipped where nvim is not installed)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NVIM = shutil.which("nvim")

SCRIPT = """\
local id = vim.lsp.start_client({
  name = "import-policy", cmd = {CMD}, root_dir = ROOT,
})
vim.lsp.buf_attach_client(0, id)
vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local out = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or "?"
  table.insert(out, code .. ":" .. d.lnum .. ":" .. d.col)
end
vim.fn.writefile(out, OUT)
vim.cmd("qa!")
"""


@pytest.mark.slow
@pytest.mark.skipif(NVIM is None, reason="nvim is not installed")
def test_neovim_reads_the_diagnostics_back(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text("version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n")
    source = tmp_path / "mod.py"
    source.write_text("import os\nimport pickle\n")
    out = tmp_path / "diagnostics.txt"
    command = ", ".join(f'"{part}"' for part in (sys.executable, "-m", "import_policy", "server"))
    script = tmp_path / "attach.lua"
    script.write_text(
        SCRIPT.replace("{CMD}", "{" + command + "}").replace("ROOT", f'"{tmp_path}"').replace("OUT", f'"{out}"')
    )
    assert NVIM is not None
    subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"luafile {script}", str(source)],
        cwd=tmp_path, timeout=120, check=False, capture_output=True,
    )
    # `pickle` on line 2 (0-based 1), at its column (0-based 7), as Python reads the file.
    assert out.read_text().splitlines() == ["no-pickle:1:7"]
