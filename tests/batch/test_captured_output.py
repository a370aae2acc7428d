"""What a visible test printed reaches the batch's gradebook formats, as `grader check` shows it: the
store keeps each outcome's captured stdout and stderr, so a gradebook written from it (a fresh run or a
resumed one) carries them; a hidden test's never."""

from __future__ import annotations

import json
from pathlib import Path

from tests.batch.conftest import batch

EXERCISE = """\
title: Add two numbers
kind: function
entry: add
statement: Return `a + b`.
tests:
  - name: add(1, 2)
    call: add(1, 2)
    expect: 3
  - name: add(5, 5)
    call: add(5, 5)
    expect: 10
    hidden: true
"""
CHATTY = ("import sys\n\ndef add(a, b):\n    print(f'adding {a} and {b}')\n"
          "    print(f'warning {a}', file=sys.stderr)\n    return a - b\n")


def test_a_visible_tests_printed_output_reaches_the_gradebook_json_and_survives_a_resume(tmp_path: Path) -> None:
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "add.yaml").write_text(EXERCISE)
    (tmp_path / "class" / "alice").mkdir(parents=True)
    (tmp_path / "class" / "alice" / "add.py").write_text(CHATTY)
    for _ in range(2):  # the second run grades nothing: its gradebook is written from the store alone
        result = batch(tmp_path / "class", "--exercises", tmp_path / "exercises", "--out", tmp_path / "out",
                       "--workers", 1)
        assert result.returncode == 0, result.stderr
        book = json.loads((tmp_path / "out" / "grades.json").read_text())
        visible, hidden = book["students"][0]["exercises"]["add"]["tests"]
        assert "adding 1 and 2" in visible["stdout"] and "warning 1" in visible["stderr"]
        assert "stdout" not in hidden and "stderr" not in hidden
