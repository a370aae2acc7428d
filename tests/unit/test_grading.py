"""grade() with work of the caller's alongside (what `grader check` does with its report's imports): the
work runs while the sandbox starts, its failure changes nothing, and no sandbox is forked while it runs."""

from __future__ import annotations

import threading
import time
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


@pytest.fixture
def launches(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, int]]:
    """(when, how many threads were alive) at every sandbox launch."""
    seen: list[tuple[float, int]] = []
    launch = Sandbox.launch

    def recorded(self: Sandbox, background: bool = False) -> object:
        seen.append((time.monotonic(), threading.active_count()))
        return launch(self, background)

    monkeypatch.setattr(Sandbox, "launch", recorded)
    return seen


def test_the_callers_work_runs_in_another_thread_while_the_sandbox_starts(submission: Path) -> None:
    ran: list[str] = []
    report = grade(TWO_SANDBOXES, submission, meanwhile=lambda: ran.append(threading.current_thread().name))
    assert ran == ["meanwhile"]
    assert report.verdict == Verdict.PASSED
    assert verdicts(report) == verdicts(grade(TWO_SANDBOXES, submission))


def test_work_that_fails_changes_nothing(submission: Path) -> None:
    def broken() -> None:
        raise ImportError("no such module")

    assert verdicts(grade(TWO_SANDBOXES, submission, meanwhile=broken)) == verdicts(grade(TWO_SANDBOXES, submission))


def test_no_sandbox_is_forked_while_the_work_runs(submission: Path, launches: list[tuple[float, int]]) -> None:
    finished: list[float] = []

    def slow() -> None:
        time.sleep(1.0)
        finished.append(time.monotonic())

    report = grade(TWO_SANDBOXES, submission, meanwhile=slow)
    assert report.verdict == Verdict.PASSED
    (first, _), (second, threads_at_second) = launches
    assert first < finished[0] <= second  # the second launch waited for the work to end
    assert threads_at_second == 1
