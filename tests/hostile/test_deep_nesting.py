"""A file nested thousands deep (operators inside operators) is a syntax error with a reason, never the
grader's internal error: the parser's own stack runs out before any test could run."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXERCISES, run_cli


def test_a_file_nested_too_deeply_is_a_syntax_error_with_a_reason(tmp_path: Path) -> None:
    handin = tmp_path / "count-queens.py"
    handin.write_text("def count_queens(n):\n    return " + "-" * 20000 + "1\n")
    result = run_cli("check", "count-queens", handin, "--exercises", EXERCISES, "--format", "json")
    report = json.loads(result.stdout)
    assert report["verdict"] == "syntax_error" and "nests too deeply" in report["tests"][0]["feedback"]
    assert result.returncode != 4 and "internal error" not in result.stderr
