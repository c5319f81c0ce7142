"""Architecture contracts against import-linter on released projects that ship theirs.

    python bench/contracts_peer.py --sdist kedro-1.7.0.tar.gz --sdist sqlfluff-4.5.0.tar.gz \
        --lint-imports /work/venvs/importlinter/bin/lint-imports [--work DIR]

For each source distribution: its `[tool.importlinter]` table (pyproject.toml, else
`.importlinter` / setup.cfg) is read, each `layers`, `independence`, `protected` and
`acyclic_siblings` contract translated into this tool's kinds (docs/rules.md, "Migrating an
.importlinter contract"), and both tools run on an unpacked copy: `lint-imports --no-cache`
(its own configuration, with only the contracts this tool has) and `import-policy check
--no-cache` under `scope: any` + `type_checking: check` (import-linter's reading), then under
`scope: module`. Prints one Markdown table row per contract: each tool's verdict (kept or
broken) and, for `scope: module`, how many chains it reports against `scope: any`.
Nothing is imported from the projects; both tools read their files.
"""

from __future__ import annotations

import argparse
import configparser
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KINDS = {"layers": "layers", "independence": "independence", "protected": "protected", "acyclic_siblings": "acyclic"}
_VERDICT = re.compile(r"^(?P<name>.+?) (?P<verdict>KEPT|BROKEN)( \(.*\))?$")


def read_contracts(root: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The `[importlinter]` session options and contracts, wherever the project keeps them."""
    pyproject = root / "pyproject.toml"
    if pyproject.exists():
        table = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("importlinter")
        if table is not None:
            return {k: v for k, v in table.items() if k != "contracts"}, list(table.get("contracts", []))
    for name in (".importlinter", "setup.cfg", "tox.ini"):
        path = root / name
        if not path.exists():
            continue
        parser = configparser.ConfigParser()
        parser.read(path, encoding="utf-8")
        if not parser.has_section("importlinter"):
            continue
        contracts = []
        for section in parser.sections():
            if section.startswith("importlinter:contract:"):
                contract = {k: _ini_value(v) for k, v in parser[section].items()}
                contract.setdefault("id", section.split(":", 2)[2])
                contracts.append(contract)
        return {k: _ini_value(v) for k, v in parser["importlinter"].items()}, contracts
    raise SystemExit(f"contracts_peer: no import-linter configuration in {root}")


def _ini_value(text: str) -> Any:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines if len(lines) > 1 or text.startswith("\n") else (lines[0] if lines else "")


def _list(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value or [])


def translate(contract: dict[str, Any], number: int, scope: str) -> dict[str, Any] | None:
    """The contract as a rule of this tool, or None for a type it does not have (`forbidden`:
    its `forbid` rules see direct imports only)."""
    kind = KINDS.get(contract.get("type", ""))
    if kind is None:
        return None
    rule: dict[str, Any] = {"id": f"contract-{number}", "kind": kind, "message": contract.get("name", "")}
    if kind == "layers":
        rule["layers"] = _list(contract["layers"])
        if contract.get("containers"):
            rule["containers"] = _list(contract["containers"])
        if str(contract.get("exhaustive", "")).lower() == "true":
            rule["exhaustive"] = True
            rule["exhaustive_ignores"] = _list(contract.get("exhaustive_ignores"))
    elif kind == "independence":
        rule["modules"] = _list(contract["modules"])
    elif kind == "protected":
        rule["modules"] = _list(contract["protected_modules"])
        rule["allowed_importers"] = _list(contract.get("allowed_importers"))
        rule["as_packages"] = str(contract.get("as_packages", "true")).lower() != "false"
    else:
        rule["packages"] = _list(contract["ancestors"])
        depth = contract.get("depth")
        rule["depth"] = int(depth) + 1 if depth not in (None, "") else 11
    if contract.get("ignore_imports"):
        rule["ignore_imports"] = _list(contract["ignore_imports"])
    rule["unmatched_ignore_imports"] = "warning"
    rule["scope"] = scope
    # import-linter reads TYPE_CHECKING imports; what Python runs at import time does not.
    rule["type_checking"] = "check" if scope == "any" else "ignore"
    return rule


def lint_imports(lint: str, root: Path, session: dict[str, Any], contracts: list[dict[str, Any]], roots: list[str]) -> dict[str, str]:
    """Each contract's verdict from `lint-imports --no-cache`, run on a configuration that holds
    only the contracts this tool translates (its `forbidden` ones would fail on their own)."""
    config = root / ".importlinter-peer.toml"
    lines = ["[tool.importlinter]"]
    for key, value in session.items():
        lines.append(f"{key} = {json.dumps(value)}")
    for contract in contracts:
        lines.append("\n[[tool.importlinter.contracts]]")
        for key, value in contract.items():
            if key == "unmatched_ignore_imports_alerting":
                continue
            lines.append(f"{key} = {json.dumps(value)}")
        lines.append('unmatched_ignore_imports_alerting = "warn"')
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(root / r) for r in roots)}
    out = subprocess.run(
        [lint, "--no-cache", str(config)], cwd=root, capture_output=True, text=True, env=env, check=False,
    )
    verdicts = {}
    for line in out.stdout.splitlines():
        found = _VERDICT.match(line.strip())
        if found:
            verdicts[found.group("name")] = found.group("verdict").lower()
    if not verdicts:
        raise SystemExit(f"contracts_peer: lint-imports gave no verdict in {root}:\n{out.stdout}\n{out.stderr}")
    return verdicts


def ours(python: str, root: Path, rules: list[dict[str, Any]], roots: list[str]) -> dict[str, int]:
    """Each rule's number of broken chains (errors) from `import-policy check --no-cache`."""
    import yaml

    policy = {"version": 1, "roots": roots, "exclude": ["tests/", "test/", "docs/", "features/"], "rules": rules}
    (root / "import-policy.yaml").write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    out = subprocess.run(
        [python, "-m", "import_policy", "check", "--no-cache", "--format", "json"], cwd=root, capture_output=True,
        text=True, check=False,
    )
    if out.returncode not in (0, 1):
        raise SystemExit(f"contracts_peer: import-policy exited {out.returncode} in {root}:\n{out.stderr}")
    found = {rule["id"]: 0 for rule in rules}
    for d in json.loads(out.stdout)["diagnostics"]:
        if d["severity"] == "error" and d["rule"] in found:
            found[d["rule"]] += 1
    return found


def project(sdist: Path, work: Path, lint: str, python: str) -> list[str]:
    with tarfile.open(sdist) as archive:
        archive.extractall(work, filter="data") if sys.version_info >= (3, 12) else archive.extractall(work)
    root = next(p for p in work.iterdir() if p.is_dir() and sdist.name.startswith(p.name))
    session, contracts = read_contracts(root)
    roots = ["src"] if (root / "src").is_dir() else ["."]
    rows = compare(root, session, contracts, roots, lint, python, "as shipped")
    # The same contracts without their ignore_imports: what the project's exceptions hide.
    bare = [{k: v for k, v in c.items() if k != "ignore_imports"} for c in contracts]
    return rows + compare(root, session, bare, roots, lint, python, "without ignore_imports")


def compare(
    root: Path, session: dict[str, Any], contracts: list[dict[str, Any]], roots: list[str], lint: str, python: str,
    how: str,
) -> list[str]:
    kept = [(n, c) for n, c in enumerate(contracts, 1) if c.get("type") in KINDS]
    theirs = lint_imports(lint, root, session, [c for _, c in kept], roots)
    any_scope = ours(python, root, [r for n, c in kept if (r := translate(c, n, "any")) is not None], roots)
    module_scope = ours(python, root, [r for n, c in kept if (r := translate(c, n, "module")) is not None], roots)
    rows = []
    for number, contract in kept:
        rule = f"contract-{number}"
        their = theirs.get(contract.get("name", ""), "?")
        mine = "broken" if any_scope[rule] else "kept"
        rows.append(
            f"| {root.name} | {contract.get('name', '')} ({contract['type']}"
            f"{', ' + how}"
            f"{', containers' if contract.get('containers') else ''}) | {their} | {mine} ({any_scope[rule]} chains) "
            f"| {'same' if their == mine else 'DIFFERENT'} | {'broken' if module_scope[rule] else 'kept'} "
            f"({module_scope[rule]} chains) |"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sdist", type=Path, action="append", required=True)
    parser.add_argument("--lint-imports", required=True, help="lint-imports of a venv with import-linter installed")
    parser.add_argument("--python", default=sys.executable, help="a Python with import-policy installed")
    parser.add_argument("--work", type=Path, help="where to unpack (default: a temporary folder, removed)")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="contracts-peer-"))
    print("| project | contract | lint-imports | import-policy, scope: any | | import-policy, scope: module |")
    print("| --- | --- | --- | --- | --- | --- |")
    try:
        for sdist in args.sdist:
            folder = work / sdist.name.replace(".tar.gz", "")
            folder.mkdir(parents=True, exist_ok=True)
            for row in project(sdist.resolve(), folder, args.lint_imports, args.python):
                print(row, flush=True)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
