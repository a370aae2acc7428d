"""Tests run ahead: while `grader check` imports its report's modules, a thread of the grader runs the tests
one after the other in the sandbox, and `run` hands over their replies. Each still starts from the loaded
state, is timed and charged on its own, and a failure, a timeout or a request out of turn still ends in the
right verdict."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from grader.grading import grade
from grader.model import Limits, Timing, Verdict
from grader.running import SubmissionRun
from tests.unit.test_sandbox import EXERCISE, _our_children, make_test
from tests.unit.test_sandbox import SOURCE as SANDBOX_SOURCE

# The runner's own test file, and functions that take time, or kill the harness.
SOURCE = SANDBOX_SOURCE + '''
import time

def burn():
    total = 0
    for i in range(8_000_000):  # ~0.4 s of CPU
        total += i
    return 1

def nap(seconds):
    time.sleep(seconds)
    return 1

def past_limit(seconds):
    while time.process_time() < seconds:  # the test child's own CPU, from its fork
        pass
    return 1

def kill_harness():
    import signal
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(5)
'''
# Loaded at once, then (a harness rewritten while loading) writes replies with a wrong seq for ever, from
# a helper of its own that the per-test sweep no longer ends.
SPAMMER = '''
import __main__, os
_serve = __main__.serve

def serve(setup, code, namespace):
    if os.fork() == 0:
        os.setsid()
        frame = b'{"seq": 1}'
        while True:
            try:
                os.write(4, len(frame).to_bytes(4, "big") + frame)
            except OSError:
                os._exit(0)
    _serve(setup, code, namespace)

__main__.serve, __main__.sweep_and_reap = serve, lambda sweep: None

def remember(n):
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
    assert slept.timing is Timing.STOPPED_WALL and 0.4 < slept.wall_seconds < 10
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
    report = grade(exercise, submission, meanwhile=lambda: time.sleep(1))  # the big one starts meanwhile
    assert time.monotonic() - started < 10
    assert [o.verdict for o in report.outcomes] == [Verdict.WRONG_ANSWER, Verdict.SKIPPED]
    assert _our_children() <= before  # the sandbox, spinning, was killed with the verdicts in


def test_a_re_run_after_a_later_test_broke_the_sandbox_gets_a_fresh_one() -> None:
    first, breaker = make_test("remember(1)"), make_test("kill_harness()")
    with SubmissionRun(EXERCISE, SOURCE) as submission_run:
        submission_run.launch(background=True, ahead=(first, breaker))
        assert submission_run.launched is not None
        submission_run.launched.settle()  # both ran: the second killed the sandbox
        assert submission_run.run(first).value == 1
        again = submission_run.run(first)  # out of turn, as a re-run is
    assert again.value == 1 and not again.error_type


def test_a_borderline_test_is_re_run_though_the_next_one_already_broke_the_sandbox(tmp_path: Path) -> None:
    # 0.56 s of CPU against 0.5 s: past the limit but within the margin, so grading runs it again; by then
    # the next test, run ahead, has killed the sandbox. Still a timeout, not a crash.
    exercise = replace(EXERCISE, tests=(replace(make_test("past_limit(0.56)", cpu=0.5), expect=1),
                                        replace(make_test("kill_harness()"), expect=1)))
    submission = tmp_path / "demo.py"
    submission.write_text(SOURCE)
    report = grade(exercise, submission, meanwhile=lambda: time.sleep(1))
    assert [o.verdict for o in report.outcomes] == [Verdict.TIMEOUT, Verdict.RUNTIME_ERROR]


def test_closing_does_not_wait_for_a_test_ahead_that_a_helper_keeps_busy(tmp_path: Path) -> None:
    exercise = replace(EXERCISE, tests=(
        replace(make_test("remember(1)"), expect=2),  # wrong: the big test is skipped
        replace(make_test("spin()"), name="big", big=True, hidden=True, expect=1, limits=Limits(cpu=20, wall=40)),
    ))
    submission = tmp_path / "demo.py"
    submission.write_text(SPAMMER)
    started = time.monotonic()
    report = grade(exercise, submission, meanwhile=lambda: time.sleep(0.5))
    assert [o.verdict for o in report.outcomes] == [Verdict.WRONG_ANSWER, Verdict.SKIPPED]
    assert time.monotonic() - started < 10  # not the big test's 40 s of wall time


def test_without_a_thread_every_test_is_sent_in_turn_by_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    import _thread

    from grader.sandbox.process import Sandbox

    def no_thread(*args: object) -> None:
        raise RuntimeError("can't start new thread")

    launches: list[int] = []
    original = Sandbox.launch
    monkeypatch.setattr(_thread, "start_new_thread", no_thread)
    monkeypatch.setattr(Sandbox, "launch", lambda self, *a: launches.append(1) or original(self, *a))
    tests = (make_test("remember(1)"), hidden("remember(2)"))
    with SubmissionRun(EXERCISE, SOURCE) as submission_run:
        submission_run.launch(background=True, ahead=tests)  # type: ignore[arg-type]
        assert submission_run.ahead == {} and not submission_run.saw_hidden
        assert [submission_run.run(t).value for t in tests] == [1, 1]  # type: ignore[arg-type]
    assert len(launches) == 1  # the visible test did not find a sandbox marked as having seen a hidden one
