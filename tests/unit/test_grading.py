"""grade() against a backend it is given: a fake one proves the seam, the real one counted shows that one
sandbox serves every test it may."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from grader.grading import GradingRequest, Reader, grade
from grader.model import Limits, Report, Verdict
from grader.sandbox import Frame, ProcessBackend, detect
from tests.unit.test_sandbox import EXERCISE, SOURCE, make_test

# A small hidden test, then a big visible one: the visible one needs a fresh sandbox, so two starts.
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


class CannedSession:
    """Answers each call from a table, as a harness would: a value, or a frame that says why none came."""

    def __init__(self, answers: dict[str, object], closed: list[bool]) -> None:
        self.answers = answers
        self.closed = closed

    def load(self, setup: dict[str, object], wall_seconds: float) -> Frame:
        return Frame({"loaded": True}, 0.01, 0.0)

    def run(self, request: dict[str, object], wall_seconds: float) -> Frame:
        answer = self.answers[str(request["call"])]
        if isinstance(answer, Frame):
            return answer
        result = json.dumps({"value": answer})
        return Frame({"seq": request["seq"], "status": 0, "result": result, "cpu": 0.01}, 0.02, 0.01)

    def close(self) -> None:
        self.closed.append(True)


class CannedBackend:
    def __init__(self, answers: dict[str, object]) -> None:
        self.answers = answers
        self.closed: list[bool] = []

    def describe(self) -> str:
        return "canned: no isolation"

    def prepare(self) -> None:
        pass

    def start(self, limits: Limits, private_paths: tuple[Path, ...] = (), cpu_ceiling: float = 0.0) -> CannedSession:
        return CannedSession(self.answers, self.closed)


class CountingBackend(ProcessBackend):
    """The real backend, counting its starts."""

    def __init__(self) -> None:
        super().__init__(detect())
        self.starts = 0

    def start(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        self.starts += 1
        return super().start(*args, **kwargs)  # type: ignore[arg-type]


def test_grading_with_a_fake_backend_gives_the_verdicts_of_its_canned_replies(submission: Path) -> None:
    exercise = replace(EXERCISE, tests=tuple(replace(make_test(f"remember({n})"), expect=1) for n in range(3)))
    backend = CannedBackend({"remember(0)": 1, "remember(1)": 2,
                             "remember(2)": Frame(None, 10.0, 0.0, failure="timeout")})
    report = grade(exercise, submission, backend=backend)
    assert [o.verdict for o in report.outcomes] == [Verdict.PASSED, Verdict.WRONG_ANSWER, Verdict.TIMEOUT]
    assert report.isolation == "canned: no isolation"
    assert backend.closed == [True]  # the session that timed out; no test was left to start another


def test_hidden_tests_details_are_kept_only_for_staff(submission: Path) -> None:
    exercise = replace(EXERCISE, tests=(replace(make_test("remember(0)"), name="secret", hidden=True, expect=1),))
    backend = CannedBackend({"remember(0)": 2})
    assert grade(exercise, submission, backend=backend).staff == ()  # a student's check never holds them
    details = grade(exercise, submission, GradingRequest(reader=Reader.STAFF), backend=backend).staff
    assert [(d.test, d.expected, d.actual) for d in details] == [("secret", "1", "2")]


def test_the_callers_work_starts_once_the_sandbox_has_started_and_before_the_load(submission: Path) -> None:
    events: list[str] = []

    class Recording(CannedSession):
        def load(self, setup: dict[str, object], wall_seconds: float) -> Frame:
            events.append(f"load {setup['source']!r}")
            return super().load(setup, wall_seconds)

    class RecordingBackend(CannedBackend):
        def start(self, *args: object, **kwargs: object) -> CannedSession:  # type: ignore[override]
            events.append("start")
            return Recording(self.answers, self.closed)

    exercise = replace(EXERCISE, tests=(replace(make_test("remember(0)"), expect=1),))
    report = grade(exercise, submission, backend=RecordingBackend({"remember(0)": 1}),
                   meanwhile=lambda: events.append("work"))
    assert events == ["start", "work", f"load {SOURCE!r}"]
    assert report.verdict == Verdict.PASSED


def test_a_sandbox_started_ahead_of_a_file_that_cannot_run_is_closed_unused(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def remember(n)\n    return n\n")
    backend = CannedBackend({})
    report = grade(replace(EXERCISE, tests=(make_test("remember(0)"),)), broken, backend=backend,
                   meanwhile=lambda: None)
    assert report.verdict == Verdict.SYNTAX_ERROR
    assert backend.closed == [True]


def test_a_visible_test_after_a_hidden_one_gets_a_fresh_sandbox(submission: Path) -> None:
    backend = CountingBackend()
    report = grade(TWO_SANDBOXES, submission, backend=backend)
    assert backend.starts == 2
    assert report.verdict == Verdict.PASSED
    assert verdicts(report) == verdicts(grade(TWO_SANDBOXES, submission))


def test_visible_tests_run_before_hidden_ones_so_one_sandbox_serves_them_all(submission: Path) -> None:
    backend = CountingBackend()
    report = grade(INTERLEAVED, submission, backend=backend)
    assert backend.starts == 1
    assert [o.test for o in report.outcomes] == [f"test {n}" for n in range(6)]  # the report keeps spec order
    assert report.verdict == Verdict.PASSED


def test_a_byte_order_mark_is_dropped_and_a_bad_byte_is_named(tmp_path: Path) -> None:
    from grader.grading import read_submission

    marked = tmp_path / "marked.py"
    marked.write_bytes(b"\xef\xbb\xbfx = 1\n")  # what some Windows editors save
    assert read_submission(marked, EXERCISE).source == "x = 1\n"
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"\xef\xbb\xbf# caf\xe9\n")
    refused = read_submission(latin, EXERCISE).refused  # the column counts the file's bytes, the mark's too
    assert refused.startswith("the file is not UTF-8 text: line 1, column 9 holds the byte 0xe9")
    assert "save the file as UTF-8" in refused
