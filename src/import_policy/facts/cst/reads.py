"""Which names a file reads, from libcst's tree: `facts.reads.read_names` for a file only
libcst parses (syntax newer than the running interpreter's, facts.newer).

`read_names` counts CPython's `Name` nodes in a load context but where only compared with
None. libcst's `ExpressionContextProvider` gives names their context; what `ast` holds as no
`Name` at all is left out here too: the names of import statements, `global` and
`nonlocal`, keyword arguments, attributes after their dot, match captures and keys, type
parameters, a type alias's own name. Anything this reads beyond `ast` only makes fewer
imports probes, never more.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider, MetadataWrapper

_NONE_TESTS = (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)


def cst_read_names(wrapper: MetadataWrapper) -> frozenset[str]:
    reads = _Reads()
    wrapper.visit(reads)
    return frozenset(name for key, name in reads.loads.items() if key not in reads.skipped)


class _Reads(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (ExpressionContextProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.loads: dict[int, str] = {}
        self.skipped: set[int] = set()  # ids of names that are no read (or only None-tested)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Global(self, node: cst.Global) -> bool:
        return False

    def visit_Nonlocal(self, node: cst.Nonlocal) -> bool:
        return False

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skipped.add(id(node.keyword))

    def visit_MatchKeywordElement(self, node: cst.MatchKeywordElement) -> None:
        self.skipped.add(id(node.key))

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.skipped.add(id(node.name))

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.skipped.add(id(node.name))

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.skipped.add(id(node.rest))

    def visit_TypeAlias(self, node: cst.TypeAlias) -> None:
        self.skipped.add(id(node.name))

    def visit_TypeVar(self, node: cst.TypeVar) -> None:
        self.skipped.add(id(node.name))

    def visit_TypeVarTuple(self, node: cst.TypeVarTuple) -> None:
        self.skipped.add(id(node.name))

    def visit_ParamSpec(self, node: cst.ParamSpec) -> None:
        self.skipped.add(id(node.name))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, _NONE_TESTS):
            return
        sides = (node.left, node.comparisons[0].comparator)
        if any(isinstance(side, cst.Name) and side.value == "None" for side in sides):
            self.skipped.update(id(side) for side in sides if isinstance(side, cst.Name))

    def visit_Name(self, node: cst.Name) -> None:
        if self.get_metadata(ExpressionContextProvider, node, None) == ExpressionContext.LOAD:
            self.loads[id(node)] = node.value
