"""Explain each disagreement between a vLLM script and import-policy.

A disagreement is a (rule, path, line) that one side reports and the other
does not. Each is classified from the source itself (statement shape, strings,
guards), using the script's own regexes where the question is "does the regex
match this text":

- regex false positive: the script reports something that is not a violation
  of the rule's intent (text in a string, a type-checking-only import, ...);
- regex false negative: a violation the script cannot see (an import nested in
  `try`/`if`, `import a, b`, an alias, its stop at the first match per file, ...);
- unexplained: neither; it counts as "ours wrong" until a person has looked.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from import_policy.kinds.imports import ImportRule
from import_policy.project.modules import module_name
from import_policy.patterns import judge

from source import Source

REGEX_FP = "regex false positive"
REGEX_FN = "regex false negative"
UNEXPLAINED = "unexplained (ours wrong?)"
TORCH_CUDA_RULES = ("torch-cuda-api", "torch-cuda-manual-seed")


@dataclass(frozen=True)
class Verdict:
    kind: str
    reason: str


def _names(node: ast.Import | ast.ImportFrom, relative: str) -> list[str]:
    """The dotted names a statement imports, as import-policy's rules see them."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        module, is_package = module_name(relative, (".",))
        parts = (module or "").split(".")
        keep = len(parts) - node.level + (1 if is_package else 0)
        base = ".".join(parts[:keep] + ([node.module] if node.module else []))
    return [base if a.name == "*" else f"{base}.{a.name}" for a in node.names]


def _forbidden(rule: ImportRule, names: Iterable[str]) -> list[str]:
    return [n for n in names if judge(n, rule.forbid, rule.except_).forbidden]


def _statement(src: Source, node: ast.AST) -> str:
    text = ast.get_source_segment(src.text, node) or ""
    return " ".join(text.split())


class Classifier:
    def __init__(self, rules: dict[str, ImportRule], patterns: dict[str, Any], cuda_patterns: list[Any]) -> None:
        self.rules = rules
        self.patterns = patterns  # rule id -> check_forbidden_imports.py's ForbiddenImport
        self.cuda_patterns = cuda_patterns  # check_torch_cuda.py's compiled patterns

    # -- the script reports it, we do not ---------------------------------------------
    def script_only(self, rule_id: str, relative: str, line: int, src: Source) -> Verdict:
        rule = self.rules[rule_id]
        where = src.non_code(line)
        if where:
            return Verdict(REGEX_FP, f"the match is inside a {where}: `{src.line(line).strip()[:70]}`")
        node = src.import_at(line)
        if node is not None:
            stmt = _statement(src, node)
            if rule.type_checking == "ignore" and src.under_type_checking(node):
                return Verdict(REGEX_FP, f"type-checking-only import, never runs: `{stmt[:70]}`")
            if rule.scope == "module" and src.in_function(node):
                return Verdict(REGEX_FP, f"lazy import inside a function: `{stmt[:70]}`")
            names = _names(node, relative)
            if not _forbidden(rule, names):
                if rule_id == "vllm-ir-boundary" and isinstance(node, ast.ImportFrom) and node.module == "vllm":
                    why = "the script judges `from vllm import x` by the module `vllm` alone"
                else:
                    why = "the statement imports no forbidden name (the regex matched an `as` alias, a comment or a longer name)"
                return Verdict(REGEX_FP, f"{why}: `{stmt[:90]}`")
        elif rule_id in TORCH_CUDA_RULES:
            text = src.line(line)
            if "torch.cuda." in text and "import torch" not in src.text:
                return Verdict(REGEX_FP, f"`torch` is not the torch module here: `{text.strip()[:70]}`")
        return Verdict(UNEXPLAINED, f"`{src.line(line).strip()[:90]}`")

    # -- we report it, the script does not ----------------------------------------------
    def ours_only(self, rule_id: str, relative: str, diagnostic: dict[str, Any], src: Source, script_files: set[str]) -> Verdict:
        line, column = diagnostic["line"], diagnostic["column"]
        text = src.line(line)
        spelled = text[column - 1 : diagnostic["end_column"] - 1] if diagnostic["end_line"] == line else text[column - 1 :]
        if rule_id in TORCH_CUDA_RULES and relative in script_files:
            return Verdict(REGEX_FN, "check_torch_cuda.py stops at its first match in a file, and reported this file already")
        node = src.import_at(line)
        if node is not None:
            return self._import_missed(rule_id, node, src, spelled)
        if spelled.startswith(("importlib", "import_module", "__import__")) or "import_module(" in text:
            return Verdict(REGEX_FN, f"a dynamic import with a literal name: `{text.strip()[:70]}`")
        if rule_id in TORCH_CUDA_RULES:
            return self._cuda_use_missed(spelled, text)
        return Verdict(REGEX_FN, f"a use of the forbidden name, not an import statement: `{spelled[:60]}` (the regex reads only import lines)")

    def _import_missed(self, rule_id: str, node: ast.Import | ast.ImportFrom, src: Source, spelled: str) -> Verdict:
        stmt = _statement(src, node)
        if rule_id in ("triton", "tilelang") and node.col_offset > 0:
            kind = src.block_kind(node)
            article = "an" if kind in ("if", "except", "else") else "a"
            return Verdict(REGEX_FN, f"module-level import inside {article} `{kind}` block; the regex reads only column 0: `{stmt[:70]}`")
        if isinstance(node, ast.Import) and len(node.names) > 1 and node.names[0].name != spelled.split(" ")[0]:
            return Verdict(REGEX_FN, f"`import a, b`: the regex reads only the first name: `{stmt[:70]}`")
        if rule_id in TORCH_CUDA_RULES:
            return Verdict(REGEX_FN, f"a from-import of the API; the regex reads only the text `torch.cuda.NAME`: `{stmt[:70]}`")
        forbidden = self.patterns.get(rule_id)
        source_text = " " * node.col_offset + (ast.get_source_segment(src.text, node) or "")
        if forbidden is not None and not any(True for _ in forbidden_matches(forbidden, source_text)):
            return Verdict(REGEX_FN, f"the script's regex does not match this statement: `{stmt[:80]}`")
        return Verdict(UNEXPLAINED, f"`{stmt[:90]}`")

    def _cuda_use_missed(self, spelled: str, text: str) -> Verdict:
        if any(p.search(text) for p in self.cuda_patterns):
            return Verdict(UNEXPLAINED, f"`{text.strip()[:90]}`")
        if spelled.endswith(("cuda_device_count_stateless", "mem_get_info")) and not spelled.startswith("torch."):
            return Verdict(REGEX_FN, f"the pattern ends in `\\(\\)\\b`, which needs a word character after `)`, so it never matches a call: `{text.strip()[:60]}`")
        if not spelled.startswith("torch.cuda."):
            return Verdict(REGEX_FN, f"a use through an alias or a from-import: `{spelled[:60]}`")
        after = text[text.find(spelled) + len(spelled):].lstrip()
        if spelled == "torch.cuda.device" and not after.startswith("("):
            # The script's pattern is `device\(`: it bans the call, so the name in an
            # annotation or an isinstance() passes; the preset bans the CUDA-only name.
            return Verdict(REGEX_FN, f"`torch.cuda.device` used without a call (the pattern needs `device(`): `{text.strip()[:60]}`")
        return Verdict(REGEX_FN, f"the script's patterns do not match `{text.strip()[:70]}`")


def forbidden_matches(forbidden: Any, text: str) -> Iterable[Any]:
    """check_forbidden_imports.py's own matching: its pattern, minus its allowed pattern and comments."""
    import regex

    for match in regex.finditer(forbidden.pattern, text, regex.MULTILINE):
        if forbidden.allowed_pattern.match(match.group()):
            continue
        line_start = text.rfind("\n", 0, match.start()) + 1
        if "#" in text[line_start : match.start()]:
            continue
        yield match
