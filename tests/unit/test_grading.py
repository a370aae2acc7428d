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

# A small hidden test, then a big visible one: the visible one needs a fresh sandbox, so two launches.
TWO_SANDBOXES = replace(EXERCISE, tests=(replace(make_test("remember(5)"), name="hidden", hidden=True, expect=1),
                                         replace(make_test("remember(6)"), name="visible", big=True, expect=1)))
# Visible and hidden tests taking turns in the spec: visible ones run first, all in one sandbox.
INTERLEAVED = replace(EXERCISE, tests=tuple(
    replace(make_test(f"remember({n})"), name=f"test {n}", hidden=n % 2 == 1, expect=1) for n in range(6)))


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



def test_visible_tests_run_before_hidden_ones_so_one_sandbox_serves_them_all(submission: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    launches: list[int] = []
    original = Sandbox.launch
    monkeypatch.setattr(Sandbox, "launch", lambda self, *a: launches.append(1) or original(self, *a))

    report = grade(INTERLEAVED, submission)
    assert len(launches) == 1
    assert [o.test for o in report.outcomes] == [f"test {n}" for n in range(6)]  # the report keeps spec order
    assert report.verdict == Verdict.PASSED


def test_a_byte_order_mark_is_dropped_and_a_bad_byte_is_named(tmp_path: Path) -> None:
    from grader.grading import read_submission

    marked = tmp_path / "marked.py"
    marked.write_bytes(b"\xef\xbb\xbfx = 1\n")  # what some Windows editors save
    assert read_submission(marked) == ("x = 1\n", "")
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"\xef\xbb\xbf# caf\xe9\n")
    assert read_submission(latin) == (None, "the file is not UTF-8 text (byte 8)")  # counted from the file's start
