"""YAML -> plain values that remember their line, so every fault can say `file:line`.

Only the safe core schema is built (strings, numbers, booleans, null, lists,
maps); any explicit tag such as `!!python/object` is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

# PyYAML is imported by `parse`: the rule kinds build their records from these nodes, and a
# run that takes its policy from the cache (cache.policy) reads no YAML.
if TYPE_CHECKING:
    import yaml

_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}


class YamlError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass
class Scalar:
    value: str | int | float | bool | None
    line: int


@dataclass
class Seq:
    items: list[Node]
    line: int


@dataclass
class Map:
    items: dict[str, tuple[int, Node]]  # key -> (key line, value)
    line: int


Node = Union[Scalar, Seq, Map]


def parse(text: str) -> Node | None:
    """The document's tree, or None for an empty document."""
    import yaml

    loader: type[yaml.SafeLoader | yaml.CSafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built
    try:
        root = yaml.compose(text, Loader=loader)
    except yaml.MarkedYAMLError as error:
        raise YamlError(*_where(error, text, loader)) from None
    except yaml.YAMLError as error:
        raise YamlError(1, f"invalid YAML: {error}") from None
    if root is None:
        return None
    return _Converter().convert(root, depth=0)


def _where(error: yaml.MarkedYAMLError, text: str, loader: type[yaml.SafeLoader | yaml.CSafeLoader]) -> tuple[int, str]:
    """The line and message of a YAML fault. A bracket or quote left open is reported where it
    opened, with the problem: where the parser gave up is often past the last line (PyYAML's
    problem mark), and for a flow node its context mark is there too."""
    problem, context = error.problem_mark, error.context_mark
    message = f"invalid YAML: {error.problem or error.context}"
    past_end = problem is None or problem.line >= len(text.splitlines())
    stopped = "the end of the file" if past_end or problem is None else f"line {problem.line + 1}"
    if context is not None and error.context is not None and "quoted" in error.context:
        quote = text[context.index] if 0 <= context.index < len(text) and text[context.index] in "'\"" else "quote"
        return context.line + 1, f"{message} (the `{quote}` at column {context.column + 1} is still open at {stopped})"
    if past_end or (error.context is not None and "flow" in error.context):
        bracket = _open_bracket(text, loader)
        if bracket is not None:
            line, column, char = bracket
            return line, f"{message} (the `{char}` at column {column} is still open at {stopped})"
    mark = problem if problem is not None and not past_end else context or problem
    return (min(mark.line + 1, max(1, len(text.splitlines()))) if mark is not None else 1), message


def _open_bracket(text: str, loader: type[yaml.SafeLoader | yaml.CSafeLoader]) -> tuple[int, int, str] | None:
    """The innermost `[` or `{` the document leaves open where YAML stops reading it (1-based)."""
    import yaml

    opened: list[tuple[yaml.Mark, str]] = []
    try:
        for token in yaml.scan(text, Loader=loader):
            if isinstance(token, (yaml.FlowSequenceStartToken, yaml.FlowMappingStartToken)):
                opened.append((token.start_mark, "[" if isinstance(token, yaml.FlowSequenceStartToken) else "{"))
            elif isinstance(token, (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken)) and opened:
                opened.pop()
    except yaml.YAMLError:
        pass
    if not opened:
        return None
    mark, char = opened[-1]
    return mark.line + 1, mark.column + 1, char


_MAX_DEPTH = 64
# Aliases can make a small document expand without bound ("billion laughs").
_MAX_NODES = 500_000


class _Converter:
    def __init__(self) -> None:
        import yaml

        self.yaml = yaml
        self.nodes = 0
        self.scalars = yaml.SafeLoader("")

    def convert(self, node: yaml.Node, depth: int) -> Node:
        yaml = self.yaml
        line = node.start_mark.line + 1
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise YamlError(line, f"the document expands to more than {_MAX_NODES} values")
        if depth > _MAX_DEPTH:
            raise YamlError(line, f"nesting deeper than {_MAX_DEPTH} levels")
        if isinstance(node, yaml.ScalarNode):
            if node.tag not in _SCALAR_TAGS:
                raise YamlError(line, f"unsupported YAML tag {node.tag!r}; only plain values are allowed")
            return Scalar(self.scalars.construct_object(node), line)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != "tag:yaml.org,2002:seq":
                raise YamlError(line, f"unsupported YAML tag {node.tag!r}; only plain lists are allowed")
            return Seq([self.convert(item, depth + 1) for item in node.value], line)
        if isinstance(node, yaml.MappingNode):
            if node.tag != "tag:yaml.org,2002:map":
                raise YamlError(line, f"unsupported YAML tag {node.tag!r}; only plain maps are allowed")
            items: dict[str, tuple[int, Node]] = {}
            for key_node, value_node in node.value:
                key_line = key_node.start_mark.line + 1
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise YamlError(key_line, "YAML merge keys ('<<') are not supported")
                key = self.convert(key_node, depth + 1)
                if not isinstance(key, Scalar) or key.value is None:
                    raise YamlError(key_line, "a map key must be a plain value")
                name = str(key.value) if not isinstance(key.value, bool) else str(key.value).lower()
                if name in items:
                    raise YamlError(key_line, f"key {name!r} appears twice (first on line {items[name][0]})")
                items[name] = (key_line, self.convert(value_node, depth + 1))
            return Map(items, line)
        raise YamlError(line, "unsupported YAML node")


def plain(node: Node) -> object:
    """The node as plain Python values, lines dropped."""
    if isinstance(node, Scalar):
        return node.value
    if isinstance(node, Seq):
        return [plain(item) for item in node.items]
    return {key: plain(value) for key, (_, value) in node.items.items()}


SHOWN_VALUE = 40  # a longer string value is described, not echoed


def describe_node(node: Node, echo: bool = True) -> str:
    """What a node is, for an error. A string is echoed only when short and `echo`: an error
    about a file that is not a policy (a token, a .netrc) must never print what it holds."""
    if isinstance(node, Map):
        return "a map"
    if isinstance(node, Seq):
        return "a list"
    if node.value is None:
        return "nothing"
    if isinstance(node.value, str) and (not echo or len(node.value) > SHOWN_VALUE or "\n" in node.value):
        return f"a string of {len(node.value)} characters"
    return f"{type(node.value).__name__} {node.value!r}"
