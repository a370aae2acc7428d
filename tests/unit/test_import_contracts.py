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
