"""The grading path's layers, as import contracts (pyproject.toml's [tool.importlinter]): a circle among its
parts, or an arrow from grading up to what shows grades, fails here before it can come back. And what
import-linter cannot say (it sees modules, not names): no package imports another's private names."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def test_the_import_contracts_are_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--no-cache"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "broken" not in done.stdout.lower().replace("0 broken", "")


def package_of(module: str) -> str:
    """grader.batch for grader.batch.plan and grader.batch itself; grader for a module of its own folder."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 and (GRADER / parts[1]).is_dir() else parts[0]


GRADER = ROOT / "grader"


def private_imports_across_packages() -> list[str]:
    """Every import, annotation-only ones too, of a private name (`_start`) or a private module
    (`grader.x._impl`) from another package."""
    found = []
    for path in sorted(GRADER.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported = [(node.module, alias.name) for alias in node.names]
            elif isinstance(node, ast.Import):
                imported = [(alias.name, "") for alias in node.names]
            else:
                continue
            for target, name in imported:
                if target.partition(".")[0] != "grader" or package_of(target) == package_of(module):
                    continue
                if any(part.startswith("_") and not part.startswith("__") for part in (*target.split("."), name)):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {target} {name}".rstrip())
    return found


def test_no_package_imports_another_package_s_private_names() -> None:
    # What a package keeps private it may change at will: a caller elsewhere that reached in would
    # drift from it (the server once started the batch's workers through its private `_start`).
    assert private_imports_across_packages() == []


def module_graph() -> dict[str, set[str]]:
    """Every grader module -> the grader modules it imports, counting every import: at load time, inside a
    function and under TYPE_CHECKING (import-linter's contracts see the first and the last, not the second)."""
    modules = {}
    for path in GRADER.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def resolved(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {module: set() for module in modules}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets = [f"{base}.{alias.name}" for alias in node.names]  # a submodule, or a name of base
            else:
                continue
            graph[module] |= {found for target in targets if (found := resolved(target)) not in (None, module)}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle_in_the_grader_counting_every_kind_of_import() -> None:
    # A circle hidden in a function's import or behind TYPE_CHECKING is still a circle: the two modules
    # cannot be understood, tested or moved apart (the server's routes and app.py once were one).
    assert circles(module_graph()) == []


def test_the_circle_finder_finds_a_circle_of_three_and_ignores_a_chain() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
