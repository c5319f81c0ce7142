"""What the classifier needs to know about one source file: statements, strings, guards.

The harness is a measuring tool, not part of import-policy: it reads the
checkout with the standard library's `ast` and `tokenize`, independently of
the libcst facts it is measuring.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path


@dataclass
class Source:
    path: Path
    text: str = field(init=False)

    def __post_init__(self) -> None:
        self.text = self.path.read_text(encoding="utf-8", errors="replace")

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def line(self, number: int) -> str:
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    @cached_property
    def tree(self) -> ast.Module | None:
        try:
            return ast.parse(self.text)
        except SyntaxError:
            return None

    @cached_property
    def parents(self) -> dict[ast.AST, ast.AST]:
        out: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree) if self.tree else ():
            for child in ast.iter_child_nodes(node):
                out[child] = node
        return out

    @cached_property
    def imports(self) -> list[ast.Import | ast.ImportFrom]:
        return [n for n in ast.walk(self.tree) if isinstance(n, (ast.Import, ast.ImportFrom))] if self.tree else []

    def import_at(self, line: int) -> ast.Import | ast.ImportFrom | None:
        for node in self.imports:
            if node.lineno <= line <= (node.end_lineno or node.lineno):
                return node
        return None

    def statement_line(self, line: int) -> int:
        """The first line of the import statement holding `line`, else `line`."""
        node = self.import_at(line)
        return node.lineno if node else line

    def first_code_line(self, line: int) -> int:
        """The first non-blank line at or after `line` (a `^\\s*` match may start on a blank line)."""
        while line <= len(self.lines) and not self.line(line).strip():
            line += 1
        return line

    @cached_property
    def _tokens(self) -> list[tokenize.TokenInfo]:
        try:
            return list(tokenize.generate_tokens(io.StringIO(self.text).readline))
        except (tokenize.TokenError, SyntaxError, IndentationError):
            return []

    def non_code(self, line: int) -> str | None:
        """'comment' or 'string' when all of `line`'s code-looking text is inside one."""
        kinds = set()
        for token in self._tokens:
            if token.start[0] <= line <= token.end[0] and token.type not in (
                tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT
            ):
                kinds.add(tokenize.tok_name[token.type])
        if kinds == {"COMMENT"}:
            return "comment"
        if kinds and kinds <= {"STRING", "FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END", "COMMENT"}:
            return "string"
        return None

    def enclosing(self, node: ast.AST) -> list[ast.AST]:
        """The chain of ancestors, innermost first."""
        out = []
        while node in self.parents:
            node = self.parents[node]
            out.append(node)
        return out

    def in_function(self, node: ast.AST) -> bool:
        return any(isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for a in self.enclosing(node))

    def under_type_checking(self, node: ast.AST) -> bool:
        child = node
        for ancestor in self.enclosing(node):
            if isinstance(ancestor, ast.If) and child in ancestor.body and "TYPE_CHECKING" in ast.unparse(ancestor.test):
                return True
            child = ancestor
        return False

    def block_kind(self, node: ast.AST) -> str:
        """The innermost compound statement holding `node`, as a keyword."""
        names = {ast.If: "if", ast.Try: "try", ast.With: "with", ast.ClassDef: "class", ast.For: "for", ast.While: "while"}
        child = node
        for ancestor in self.enclosing(node):
            for kind, word in names.items():
                if isinstance(ancestor, kind):
                    if isinstance(ancestor, ast.Try) and any(child in h.body for h in ancestor.handlers):
                        return "except"
                    if isinstance(ancestor, ast.Try) and child in ancestor.finalbody:
                        return "finally"
                    if isinstance(ancestor, ast.If) and child in ancestor.orelse:
                        return "else"
                    return word
            if isinstance(ancestor, ast.ExceptHandler):
                return "except"
            child = ancestor
        return "module"
