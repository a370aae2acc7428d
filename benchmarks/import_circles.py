"""Count the import circles among grader's top-level packages and modules, with and without the imports made
only for annotations: `python benchmarks/import_circles.py [ROOT]` (ROOT: a checkout, default this one).
Uses grimp, which import-linter (a test dependency) installs."""

from __future__ import annotations

import sys
from pathlib import Path

import grimp


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def main() -> None:
    if len(sys.argv) > 1:
        sys.path.insert(0, str(Path(sys.argv[1]).resolve()))
    for annotations in (True, False):
        imports = grimp.build_graph("grader", exclude_type_checking_imports=not annotations, cache_dir=None)
        graph: dict[str, set[str]] = {}
        for module in imports.modules:
            top = module.split(".")[1] if "." in module else ""
            for imported in imports.find_modules_directly_imported_by(module):
                other = imported.split(".")[1] if "." in imported else ""
                if top and other and top != other:
                    graph.setdefault(top, set()).add(other)
        groups = circles(graph)
        pairs = sorted((a, b) for a in graph for b in graph[a] if a < b and a in graph.get(b, ()))
        print(f"{'with' if annotations else 'without'} annotation-only imports: {len(groups)} circle(s)")
        for group in groups:
            print(f"  {len(group)} packages: {', '.join(group)}")
        print(f"  two-way pairs: {', '.join(f'{a}<->{b}' for a, b in pairs) or 'none'}")


if __name__ == "__main__":
    main()
