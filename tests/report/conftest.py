"""Student reports rendered as a student sees them: real grading in the real sandbox, drawn at a fixed width."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from grader.model import Report
from grader.outputs.terminal import TerminalReport
from grader.spec import load_exercise

WIDTH = 100

MEAN = """title: Mean
kind: function
entry: mean
statement: Return the mean of a list of numbers.
limits: {cpu: 0.5}
tests:
  - {name: two numbers, call: "mean([1, 3])", expect: 2.0}
  - {name: three numbers, call: "mean([1, 2, 6])", expect: 3.0}
  - {name: one number, call: "mean([5])", expect: 5.0, hidden: true}
  - {name: negatives, call: "mean([-1, -3])", expect: -2.0, hidden: true}
  - {name: empty, call: "mean([10, 20])", expect: 15.0, hidden: true}
  - {name: a long list, call: "mean(list(range(100001)))", expect: 50000.0, big: true}
"""


def render(report: Report) -> str:
    out = io.StringIO()
    TerminalReport(width=WIDTH, color=False).render(report, out)
    return out.getvalue()


@pytest.fixture
def write(tmp_path: Path):
    """write(spec_text, code, exercise_id='mean', name='alice.py') -> (Exercise, submission path)."""

    def make(spec: str, code: str, exercise_id: str = "mean", name: str = "alice.py"):
        folder = tmp_path / "exercises"
        folder.mkdir(exist_ok=True)
        spec_path = folder / f"{exercise_id}.yaml"
        spec_path.write_text(spec)
        submission = tmp_path / name
        submission.write_text(code)
        return load_exercise(spec_path), submission

    return make
