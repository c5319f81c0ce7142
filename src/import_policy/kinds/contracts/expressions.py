"""import-linter's module and import expressions: `a.b`, `a.*` (one segment), `a.**` (one or
more segments), and `importer -> imported`, each side such an expression. A module expression
names modules exactly (never their descendants: a contract's `as_packages` says that)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SEGMENT = re.compile(r"\w+|\*{1,2}")


class ExpressionError(ValueError):
    """An expression that cannot be read; the message says what is expected."""


@dataclass(frozen=True)
class ModuleExpression:
    text: str
    regex: re.Pattern[str] = field(compare=False, repr=False)

    @property
    def wildcard(self) -> bool:
        return "*" in self.text

    @classmethod
    def compile(cls, text: str) -> ModuleExpression:
        parts = text.split(".")
        if not text or not all(_SEGMENT.fullmatch(part) for part in parts):
            raise ExpressionError(
                f"{text!r} is not a module expression: dotted names, each segment a name, `*` (one segment) or `**` (one or more)"
            )
        for first, second in zip(parts, parts[1:]):
            if "**" in (first, second) and first.startswith("*") and second.startswith("*"):
                raise ExpressionError(f"{text!r}: `**` may not stand next to another wildcard segment")
        pattern = r"\.".join(
            r"[^.]+" if part == "*" else r"[^.]+(?:\.[^.]+)*?" if part == "**" else re.escape(part) for part in parts
        )
        return cls(text, re.compile(pattern))

    def matches(self, module: str) -> bool:
        return self.regex.fullmatch(module) is not None


@dataclass(frozen=True)
class ImportExpression:
    """`ignore_imports` entry: the imports from a module `importer` matches to one `imported` matches."""

    text: str
    importer: ModuleExpression
    imported: ModuleExpression
    line: int = field(default=0, compare=False)

    @classmethod
    def compile(cls, text: str, line: int = 0) -> ImportExpression:
        importer, arrow, imported = text.partition("->")
        if not arrow:
            raise ExpressionError(f"{text!r} is not an import expression like 'pkg.a -> pkg.b' (wildcards `*`, `**`)")
        return cls(text, ModuleExpression.compile(importer.strip()), ModuleExpression.compile(imported.strip()), line)

    def matches(self, importer: str, imported: str) -> bool:
        return self.importer.matches(importer) and self.imported.matches(imported)


__all__ = ["ExpressionError", "ImportExpression", "ModuleExpression"]
