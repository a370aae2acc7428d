"""grade() with work of the caller's done meanwhile (what `grader check` does with its report's imports):
the work is done once, after the sandbox was launched and before the first test's reply is read, and the
report is the one a plain grading gives."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from grader.grading import grade
from grader.model import Report, Verdict
from grader.sandbox.process import Sandbox
from tests.unit.test_sandbox import EXERCISE, SOURCE, make_test

# A hidden test, then a visible one: the visible one needs a fresh sandbox, so there are two launches.
TWO_SANDBOXES = replace(EXERCISE, tests=(replace(make_test("remember(5)"), name="hidden", hidden=True, expect=1),
                                         replace(make_test("remember(6)"), name="visible", expect=1)))


def verdicts(report: Report) -> list[tuple[object, ...]]:
    """A report without its measured times."""
    return [(o.test, o.verdict, o.points, o.feedback, o.expected, o.actual) for o in report.outcomes]


@pytest.fixture
def submission(tmp_path: Path) -> Path:
    path = tmp_path / "demo.py"
    path.write_text(SOURCE)
    return path


def test_the_callers_work_is_done_once_while_the_sandbox_loads(submission: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    for name in ("launch", "loaded"):
        original = getattr(Sandbox, name)
        monkeypatch.setattr(Sandbox, name, lambda self, *a, _f=original, _n=name: events.append(_n) or _f(self, *a))

    report = grade(TWO_SANDBOXES, submission, meanwhile=lambda: events.append("work"))
    assert events == ["launch", "work", "loaded", "launch", "loaded"]
    assert report.verdict == Verdict.PASSED
    assert verdicts(report) == verdicts(grade(TWO_SANDBOXES, submission))

