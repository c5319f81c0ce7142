"""What a file exports as transformers' `define_import_structure` reads it: its `__all__`, found in
the text as `fetch__all__` finds it, and the classes and functions under a top-level
`@requires`. Text only, as transformers reads it: no parse."""

from __future__ import annotations




def wants_exports(text: str) -> bool:
    """Whether the text can export anything as `exports_of` reads it (cheap tests first)."""
    return ("__all__" in text and (text.startswith("__all__") or "\n__all__" in text or "\r__all__" in text)) or (
        "@requires" in text
    )


def exports_of(text: str) -> tuple[str, ...]:
    """The names a file exports as transformers' `create_import_structure_from_path` reads them:
    the `__all__` its `fetch__all__` finds in the text, and each class or function under a
    top-level `@requires` decorator."""
    found: dict[str, None] = {}
    if "@requires" in text:
        previous = ""
        for line in text.split("\n"):
            if line.startswith((" ", "\t", "@", ")")) and not line.startswith("@requires"):
                continue
            if "@requires" in previous and line.startswith(("class", "def")):
                start = 6 if line.startswith("class") else 4
                found.setdefault(line[start:].split("(")[0].strip(":"))
            previous = line
    if "__all__" in text:
        for name in _fetch_all(text):
            found.setdefault(name)
    return tuple(name for name in found if name)


def _fetch_all(text: str) -> list[str]:
    """transformers' `fetch__all__`: the last line starting with `__all__`, then its list."""
    lines = text.splitlines()
    start = None
    for index, line in enumerate(lines):
        if line.startswith("__all__"):
            start = index
    if start is None:
        return []
    lines = lines[start:]
    if lines[0].endswith("]"):
        return [name.strip("\"' ") for name in lines[0].split("=")[1].strip(" []").split(",")]
    found: list[str] = []
    for line in lines[1:]:
        if line.strip() == "]":
            return found
        found.append(line.strip("\"', "))
    return found
