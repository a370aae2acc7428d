"""Small modules: no module of the package is over 400 lines (a module that grows past it is cut where its
parts are, as server/state.py and commands/authoring.py were). Counted as `wc -l` counts."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "grader"
MOST = 400


def test_no_module_of_the_package_is_over_400_lines() -> None:
    over = {str(path.relative_to(PACKAGE)): lines for path in sorted(PACKAGE.rglob("*.py"))
            if (lines := path.read_bytes().count(b"\n")) > MOST}
    assert over == {}, f"over {MOST} lines: cut them where their parts are"
