"""The verdict table, stated directly: each observation of a run, and each checker result, with the verdict
and feedback it gives. No sandbox: RunResults are written out as the sandbox would report them."""

from __future__ import annotations

import pytest

from dataclasses import replace

from grader.forms.program_io import ProgramIO
from grader.forms.raises import ExpectedRaise
from grader.model import MISSING, CheckerSpec, Fault, Limits, RunResult, Timing, Verdict
from grader.model import Test as SpecTest
from grader.verdicts import judge, run_once_more_if_borderline, verdict_for

LIMITS = Limits(cpu=1.0, memory=256, output=8)


def a_test(compare: str = "value", hidden: bool = False, checker: str | None = None) -> SpecTest:
    return SpecTest(name="t", call="f()", stdin=None, compare=compare, expect=MISSING, hidden=hidden, big=False,  # type: ignore[arg-type]
                points=2.0, checker=CheckerSpec(checker or compare), limits=LIMITS)


@pytest.mark.parametrize(("observed", "verdict", "feedback"), [
    (RunResult(sandbox_error="cannot make the sandbox's cgroup"), Verdict.GRADER_ERROR,
     "cannot make the sandbox's cgroup"),
    (RunResult(timing=Timing.STOPPED_CPU, cpu_seconds=1.2), Verdict.TIMEOUT,
     "time limit exceeded: stopped after 1.20 s of CPU; the limit is 1.00 s (a small test: this may be a loop that never ends)"),
    (RunResult(timing=Timing.OVER_LIMIT, cpu_seconds=1.1), Verdict.TIMEOUT, "time limit exceeded: it took 1.10 s of CPU; the limit is 1.00 s"),
    (RunResult(timing=Timing.STOPPED_WALL, cpu_seconds=0.01, wall_seconds=5.0), Verdict.TIMEOUT,
     "time limit exceeded: stopped after 5.00 s of wall-clock time with only 0.01 s of CPU: it was waiting or sleeping; the limit is 5.00 s"),
    # A `while True: pass` on a busy machine: the wall backstop stopped it, the CPU time says it was computing.
    (RunResult(timing=Timing.STOPPED_WALL, cpu_seconds=0.97, wall_seconds=5.0), Verdict.TIMEOUT,
     "time limit exceeded: stopped after 0.97 s of CPU, near the limit of 1.00 s, when the wall-clock backstop of 5.00 s ran out on a busy machine (a small test: this may be a loop that never ends)"),
    (RunResult(timing=Timing.STOPPED_WALL, cpu_seconds=0.1, wall_seconds=5.0, error_message="while loading the file"),
     Verdict.TIMEOUT, "time limit exceeded while loading the file: stopped after 5.00 s of wall-clock time with only 0.10 s of CPU: it was waiting or sleeping; the limit is 5.00 s"),
    (RunResult(timing=Timing.STOPPED_WALL, cpu_seconds=0.6, wall_seconds=5.0, error_message="while loading the file"),
     Verdict.TIMEOUT, "time limit exceeded while loading the file: stopped after 0.60 s of CPU, near the limit of 1.00 s, when the wall-clock backstop of 5.00 s ran out on a busy machine"),
    (RunResult(output_truncated=True, has_value=True, value=1), Verdict.OUTPUT_LIMIT, "printed more than 8 KiB"),
    (RunResult(fault=Fault.OUT_OF_MEMORY, error_type="MemoryError"), Verdict.MEMORY_LIMIT,
     "ran out of memory (limit 256 MiB)"),
    (RunResult(fault=Fault.RAISED, error_type="IndexError", error_message="list index out of range"),
     Verdict.RUNTIME_ERROR, "IndexError: list index out of range"),
    (RunResult(fault=Fault.RAISED, error_type="KeyboardInterrupt"), Verdict.RUNTIME_ERROR, "KeyboardInterrupt"),
    (RunResult(fault=Fault.DIED, exit_code=None, error_message="the test process exited before returning a value"),
     Verdict.RUNTIME_ERROR, "ProcessDied: the test process exited before returning a value"),
    (RunResult(fault=Fault.UNREADABLE, error_message="the test process wrote an unreadable result"),
     Verdict.RUNTIME_ERROR, "UnreadableValue: the test process wrote an unreadable result"),
    (RunResult(fault=Fault.EXITED, exit_code=3, error_message="the code called sys.exit(3)"), Verdict.RUNTIME_ERROR,
     "SystemExit: the code called sys.exit(3)"),
    (RunResult(signal=11, exit_code=None), Verdict.RUNTIME_ERROR, "the process was killed by signal 11"),
    (RunResult(exit_code=2, stderr="usage"), Verdict.RUNTIME_ERROR, "exited with status 2"),
])
def test_what_went_wrong_in_the_run_decides_before_the_checker(observed: RunResult, verdict: Verdict,
                                                               feedback: str) -> None:
    assert verdict_for(a_test(), observed)[:2] == (verdict, feedback)
    outcome = judge(a_test(), observed, 42)
    assert (outcome.verdict, outcome.feedback, outcome.points, outcome.max_points) == (verdict, feedback, 0.0, 2.0)


def test_a_run_that_went_well_is_left_to_the_checker() -> None:
    assert verdict_for(a_test(), RunResult(value=3, has_value=True)) == (None, "", "")


@pytest.mark.parametrize(("compare", "observed", "expected", "verdict", "feedback"), [
    ("value", RunResult(value=3, has_value=True), 3, Verdict.PASSED, ""),
    ("value", RunResult(value=4, has_value=True), 3, Verdict.WRONG_ANSWER, "expected 3, got 4"),
    ("value", RunResult(value=True, has_value=True), 1, Verdict.WRONG_ANSWER,
     "expected an int, got a bool: True (checker 'value' compares types too; checker 'equal' compares with ==)"),
    ("output", RunResult(stdout="2\n"), "2", Verdict.PASSED, ""),
    ("output", RunResult(stdout="3\n"), "2", Verdict.WRONG_ANSWER, "line 1 differs"),
    ("output", RunResult(stdout=""), "2", Verdict.WRONG_ANSWER, "printed nothing"),
])
def test_the_checker_decides_a_run_that_went_well(compare: str, observed: RunResult, expected: object,
                                                   verdict: Verdict, feedback: str) -> None:
    outcome = judge(a_test(compare), observed, expected)
    assert (outcome.verdict, outcome.feedback) == (verdict, feedback)
    assert outcome.points == (2.0 if verdict == Verdict.PASSED else 0.0)
    assert outcome.expected is not None  # a visible test shows what was expected


@pytest.mark.parametrize(("observed", "feedback"), [
    (RunResult(value=4, has_value=True), "wrong answer"),
    (RunResult(fault=Fault.RAISED, error_type="IndexError", error_message="board [1, 3] is bad"), "IndexError"),
    (RunResult(timing=Timing.STOPPED_CPU, cpu_seconds=1.2), "time limit exceeded: stopped after 1.20 s of CPU; the limit is 1.00 s (a small test: this may be a loop that never ends)"),
    (RunResult(value=3, has_value=True), ""),
])
def test_a_hidden_test_says_what_kind_of_failure_and_nothing_of_its_input(observed: RunResult, feedback: str) -> None:
    outcome = judge(a_test(hidden=True), observed, 3)
    assert outcome.feedback == feedback
    assert (outcome.expected, outcome.actual, outcome.details) == (None, None, "")


def test_a_borderline_run_is_run_again_and_the_faster_kept() -> None:
    runs = iter([RunResult(timing=Timing.OVER_LIMIT, cpu_seconds=1.1), RunResult(cpu_seconds=0.9, value=1)])
    assert run_once_more_if_borderline(a_test(), lambda test: next(runs)).cpu_seconds == 0.9


@pytest.mark.parametrize("timing", [Timing.STOPPED_CPU, Timing.STOPPED_WALL, Timing.IN_TIME])
def test_only_a_borderline_run_is_run_again(timing: Timing) -> None:
    calls: list[int] = []
    run_once_more_if_borderline(a_test(), lambda test: calls.append(1) or RunResult(timing=timing))
    assert len(calls) == 1


# ---------------------------------------------------------------- forms, fractions and per-test feedback
def _custom(tmp_path, body: str) -> CheckerSpec:  # noqa: ANN001
    path = tmp_path / "check.py"
    path.write_text(body)
    return CheckerSpec("custom", (("file", str(path)), ("function", "check")))


def test_a_fraction_from_the_checker_scales_the_points(tmp_path) -> None:  # noqa: ANN001
    test = replace(a_test(), checker=_custom(tmp_path, "def check(input, answer, expected):\n"
                                                       "    return {'passed': False, 'fraction': 0.25}\n"))
    outcome = judge(test, RunResult(value=[1], has_value=True), [1])
    assert (outcome.verdict, outcome.points, outcome.max_points) == (Verdict.WRONG_ANSWER, 0.5, 2.0)


def test_a_checker_that_raises_is_a_grader_error_naming_it(tmp_path) -> None:  # noqa: ANN001
    test = replace(a_test(), checker=_custom(tmp_path, "def check(input, answer, expected):\n    raise KeyError(1)\n"))
    outcome = judge(test, RunResult(value=1, has_value=True), 1)
    assert outcome.verdict == Verdict.GRADER_ERROR and outcome.points == 0
    assert outcome.feedback == "checker check.py:check raised KeyError: 1"


def test_a_checker_that_returns_no_verdict_is_a_grader_error(tmp_path) -> None:  # noqa: ANN001
    test = replace(a_test(), checker=_custom(tmp_path, "def check(input, answer, expected):\n    return 'yes'\n"))
    outcome = judge(test, RunResult(value=1, has_value=True), 1)
    assert outcome.verdict == Verdict.GRADER_ERROR and "check.py:check returned 'yes'" in outcome.feedback


def test_the_custom_checker_gets_the_call_arguments_and_the_answer_with_its_types(tmp_path) -> None:  # noqa: ANN001
    seen = tmp_path / "seen.txt"
    test = replace(a_test(), call="f(3, xs)", given=(("xs", [1.5]),), checker=_custom(
        tmp_path, f"def check(input, answer, expected):\n    open({str(seen)!r}, 'w').write(repr((input, answer, expected)))\n"
                  "    return True\n"))
    assert judge(test, RunResult(value=(1, True), has_value=True), None).verdict == Verdict.PASSED
    assert seen.read_text() == "((3, [1.5]), (1, True), None)"


def test_per_test_feedback_follows_a_visible_failure_and_is_all_a_hidden_one_shows() -> None:
    wrong = RunResult(value=4, has_value=True)
    visible = replace(a_test(), feedback="Count from 1.")
    assert judge(visible, wrong, 3).feedback == "expected 3, got 4 — Count from 1."
    assert judge(visible, RunResult(value=3, has_value=True), 3).feedback == ""
    hidden = replace(visible, hidden=True)
    assert judge(hidden, wrong, 3).feedback == "Count from 1."
    assert judge(hidden, RunResult(fault=Fault.RAISED, error_type="KeyError", error_message="secret"), 3).feedback \
        == "Count from 1."


def test_an_expected_exception_is_an_answer_and_its_absence_wrong() -> None:
    test = replace(a_test(), form="raises", raises=ExpectedRaise("ValueError", "empty"))
    subclass = RunResult(fault=Fault.RAISED, error_type="EmptyError", error_bases=("ValueError", "Exception",
                                                                                   "BaseException"), error_message="empty list")
    assert judge(test, subclass, None).verdict == Verdict.PASSED
    named_only = RunResult(fault=Fault.RAISED, error_type="ValueError", error_bases=("Exception", "BaseException"),
                           error_message="empty")
    assert judge(test, named_only, None).feedback == ("expected ValueError with a message containing 'empty', "
                                                      "but it raised ValueError: 'empty'")
    assert judge(test, RunResult(value=0.0, has_value=True), None).feedback == \
        "expected ValueError with a message containing 'empty' to be raised, but it returned 0.0"
    assert judge(test, RunResult(fault=Fault.EXITED, error_message="sys.exit(0)"), None).verdict == Verdict.RUNTIME_ERROR


def test_a_program_test_takes_its_exit_status_as_an_answer() -> None:
    test = replace(a_test("output"), call=None, stdin="", form="program-io", io=ProgramIO(exit_status=1, stderr="nonempty"))
    assert judge(test, RunResult(exit_code=1, stderr="cannot read\n"), "").verdict == Verdict.PASSED
    assert judge(test, RunResult(exit_code=1), "").feedback == "printed nothing on standard error"
    assert judge(test, RunResult(exit_code=0), "").feedback == "exited with status 0; expected status 1"


def test_only_a_small_test_stopped_on_cpu_hints_at_a_loop() -> None:
    from dataclasses import replace

    stopped = RunResult(timing=Timing.STOPPED_CPU, cpu_seconds=1.2)
    assert "a loop that never ends" in judge(a_test(), stopped, 3).feedback
    assert "loop" not in judge(replace(a_test(), big=True), stopped, 3).feedback  # big: it may be slowness
    assert "loop" not in judge(a_test(), RunResult(timing=Timing.OVER_LIMIT, cpu_seconds=1.1), 3).feedback


@pytest.mark.parametrize("observed", [
    RunResult(timing=Timing.OVER_LIMIT, cpu_seconds=1.1, fault=Fault.RAISED, error_type="ValueError",
              error_message="LEAK:[1, 3]"),
    RunResult(timing=Timing.STOPPED_CPU, cpu_seconds=1.2, error_message="LEAK:[1, 3]"),  # a forged message
    RunResult(timing=Timing.STOPPED_WALL, wall_seconds=5.0, error_message="while loading the file LEAK:[1, 3]"),
    RunResult(fault=Fault.OUT_OF_MEMORY, error_type="MemoryError", error_message="LEAK:[1, 3]",
              traceback="LEAK:[1, 3]"),
    RunResult(output_truncated=True, stdout="LEAK:[1, 3]", error_message="LEAK:[1, 3]"),
    RunResult(fault=Fault.DIED, error_message="LEAK:[1, 3]"),
    RunResult(exit_code=3, stderr="LEAK:[1, 3]"),
])
def test_a_hidden_failure_is_told_in_the_graders_words_on_every_path(observed: RunResult) -> None:
    outcome = judge(a_test(hidden=True), observed, 3)
    assert outcome.verdict != Verdict.PASSED and outcome.feedback
    assert "LEAK" not in outcome.feedback and "[1, 3]" not in outcome.feedback + outcome.details


@pytest.mark.parametrize("signal_name, cpu, timing", [
    ("SIGPROF", 0.40, Timing.STOPPED_CPU),  # ticks ran ahead of the exact count on a loaded machine
    ("SIGXCPU", 0.55, Timing.STOPPED_CPU),
    ("SIGKILL", 0.60, Timing.STOPPED_CPU),  # RLIMIT_CPU's hard limit
    ("SIGPROF", 0.10, Timing.IN_TIME),  # sent by the run to itself: no CPU stop
])
def test_the_cpu_timers_kill_is_a_timeout_from_half_the_limit(signal_name: str, cpu: float, timing: Timing) -> None:
    import signal

    from grader.kinds import kind_of
    from grader.replies import result_from
    from grader.sandbox.wire import Frame

    number = int(getattr(signal, signal_name))
    result = result_from(Frame({"seq": 1, "status": number, "result": ""}, 1.0, cpu), Limits(cpu=0.5),
                         kind_of("function"))
    assert result.signal == number and result.timing is timing
    verdict = verdict_for(SpecTest("t", "f()", None, "value", 1, False, False, 1.0, CheckerSpec("value"),
                                   Limits(cpu=0.5)), result)[0]
    assert verdict == (Verdict.TIMEOUT if timing is Timing.STOPPED_CPU else Verdict.RUNTIME_ERROR)
