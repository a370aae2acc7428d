"""Tests run ahead: while `grader check` imports its report's modules, a thread of the grader runs the tests
one after the other in the sandbox, and `run` hands over their replies. Each still starts from the loaded
state, is timed and charged on its own, and a failure, a timeout or a request out of turn still ends in the
right verdict."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from grader.grading import grade
from grader.model import Limits, Verdict
from grader.running import SubmissionRun
from tests.unit.test_sandbox import EXERCISE, _our_children, make_test

SOURCE = '''
import time
calls = []

def remember(n):
    calls.append(n)
    return len(calls)

def burn():
    total = 0
    for i in range(8_000_000):  # ~0.4 s of CPU
        total += i
    return 1

def nap(seconds):
    time.sleep(seconds)
    return 1

def spin():
    while True:
        pass
'''


def hidden(call: str, **changes: object) -> object:
    return replace(make_test(call), hidden=True, **changes)


def test_tests_run_ahead_without_being_asked_each_from_the_loaded_state() -> None:
    tests = tuple(make_test(f"remember({n})") for n in range(4))
    with SubmissionRun(EXERCISE, SOURCE) as submission_run:
        submission_run.launch(background=True, ahead=tests)
        sandbox = submission_run.launched
        assert sandbox is not None
        sandbox.settle()  # the thread is done: every reply came in before any was asked for
        assert len(sandbox._ahead) == 1 + len(tests)  # the load's reply, then the tests'
        assert all(entry.frame is not None and entry.frame.data for entry in sandbox._ahead)
        assert [submission_run.run(t).value for t in tests] == [1, 1, 1, 1]  # nothing leaks between tests


def test_a_test_run_ahead_is_charged_its_own_cpu_and_nothing_of_the_next() -> None:
    tests = (make_test("burn()", cpu=5.0), make_test("remember(1)", cpu=5.0))
    with SubmissionRun(EXERCISE, SOURCE) as submission_run:
        submission_run.launch(background=True, ahead=tests)
        burned, cheap = (submission_run.run(t) for t in tests)
    assert burned.value == 1 and burned.cpu_seconds > 0.2
    assert cheap.value == 1 and cheap.cpu_seconds < 0.1


def test_a_wall_timeout_ahead_ends_that_test_and_the_next_runs_in_a_fresh_sandbox() -> None:
    sleepy = replace(make_test("nap(30)"), limits=Limits(cpu=1.0, wall=0.5))
    after = make_test("remember(1)")
    with SubmissionRun(EXERCISE, SOURCE) as submission_run:
        submission_run.launch(background=True, ahead=(sleepy, after))
        first = submission_run.launched
        slept, then = submission_run.run(sleepy), submission_run.run(after)
        assert submission_run.sandbox is not first  # killed with its sleeping test
    assert slept.wall_timeout and slept.timed_out and 0.4 < slept.wall_seconds < 10
    assert then.value == 1 and not then.timed_out


def test_a_request_out_of_turn_does_not_wait_for_the_tests_still_running_ahead() -> None:
    # A re-run (grading's borderline case) asks for a test while later ones still run ahead.
    long_nap = replace(make_test("nap(30)"), limits=Limits(cpu=1.0, wall=60))
    other = make_test("remember(7)")
    with SubmissionRun(EXERCISE, SOURCE) as submission_run:
        submission_run.launch(background=True, ahead=(make_test("remember(1)"), long_nap))
        started = time.monotonic()
        assert submission_run.run(other).value == 1  # a fresh sandbox: not the 30 s the nap holds the old one
        assert time.monotonic() - started < 15
        assert submission_run.ahead == {}  # what still ran ahead went with the old sandbox: sent again if asked


def test_no_visible_test_runs_ahead_after_a_hidden_one() -> None:
    tests = (make_test("remember(1)"), hidden("remember(2)"), replace(make_test("remember(3)"), name="late visible"))
    with SubmissionRun(EXERCISE, SOURCE) as submission_run:
        submission_run.launch(background=True, ahead=tests)  # type: ignore[arg-type]
        assert list(submission_run.ahead) == ["remember(1)", "remember(2)"]
        assert [submission_run.run(t).value for t in tests] == [1, 1, 1]  # type: ignore[arg-type]


def test_a_big_test_started_ahead_is_still_skipped_after_a_small_failure_and_killed(tmp_path: Path) -> None:
    # Wrong on its small test; the big one would spin for its whole 20 s CPU limit if it were waited for.
    exercise = replace(EXERCISE, tests=(
        replace(make_test("remember(1)"), expect=2),
        replace(make_test("spin()", cpu=20.0), name="big", big=True, hidden=True, expect=1),
    ))
    submission = tmp_path / "demo.py"
    submission.write_text(SOURCE)
    before, started = _our_children(), time.monotonic()
    report = grade(exercise, submission, meanwhile=lambda: time.sleep(0.3))  # the big one starts meanwhile
    assert time.monotonic() - started < 10
    assert [o.verdict for o in report.outcomes] == [Verdict.WRONG_ANSWER, Verdict.SKIPPED]
    assert _our_children() <= before  # the sandbox, spinning, was killed with the verdicts in
