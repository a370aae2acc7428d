"""Grade one submission: static checks, then each test run, checked and turned into an Outcome."""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from pathlib import Path

from grader.checkers import CHECKERS, show
from grader.expected import ExpectationError, expected_values
from grader.model import Exercise, Kind, Outcome, Report, RunResult, Test, Verdict
from grader.rules import check_rules
from grader.running import SubmissionRun
from grader.sandbox import Backend, default_backend

MAX_SUBMISSION_BYTES = 1 << 20


def read_submission(path: Path) -> tuple[str | None, str]:
    """The submission's text, or (None, why it cannot be graded)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_SUBMISSION_BYTES + 1)  # a multi-GB hand-in is never read whole
            size = os.fstat(handle.fileno()).st_size
    except OSError as error:
        return None, f"cannot read the file: {error.strerror}"
    if len(data) > MAX_SUBMISSION_BYTES:
        return None, f"the file is {size} bytes; the limit is {MAX_SUBMISSION_BYTES}"
    if b"\0" in data:
        return None, "the file is binary, not Python text"
    try:
        # A byte-order mark is dropped by hand: the utf-8-sig codec is a module of its own to import (~1 ms).
        return data.decode("utf-8").removeprefix("\ufeff"), ""
    except UnicodeDecodeError as error:
        return None, f"the file is not UTF-8 text (byte {error.start})"


def grade(exercise: Exercise, submission: Path, *, run_all: bool = False, visible_only: bool = False,
          private_paths: tuple[Path, ...] = (), label: str | None = None, source: str | None = None,
          backend: Backend | None = None, meanwhile: Callable[[], object] | None = None) -> Report:
    """Every test's outcome, in the spec's order. Small tests run first; once one fails, big tests are
    skipped unless `run_all`. `visible_only` grades a student bundle, whose hidden tests are not there.
    `source`: the file's text, already read by the caller and vetted as `read_submission` does (a batch).
    `backend`: the sandbox to run the tests in (default: the real one, under the layers detected here).
    `meanwhile`: the caller's own work, done while the sandbox starts and loads the file; not called when
    no sandbox is started (a predict question, a file that does not parse, a broken rule or expectation)."""
    tests = tuple(t for t in exercise.tests if not (visible_only and t.hidden))
    backend = backend or default_backend()
    if exercise.kind != Kind.PREDICT:
        backend.prepare()
    isolation = backend.describe()
    name = label or str(submission)
    source, problem = (source, "") if source is not None else read_submission(submission)
    if source is None:
        return _all(exercise, tests, name, isolation, Verdict.RUNTIME_ERROR, problem, visible_only)
    if exercise.kind != Kind.PREDICT:
        try:
            tree = ast.parse(source, filename="submission.py")
        except SyntaxError as error:
            where = f"line {error.lineno}: " if error.lineno else ""
            return _all(exercise, tests, name, isolation, Verdict.SYNTAX_ERROR, f"{where}{error.msg}", visible_only)
        violations = check_rules(tree, exercise.require, exercise.forbid)
        if violations:
            feedback = "; ".join(v.message for v in violations)
            return _all(exercise, tests, name, isolation, Verdict.RULE_VIOLATION, feedback, visible_only)
    try:
        expected = expected_values(exercise)
    except ExpectationError as error:
        return _all(exercise, tests, name, isolation, Verdict.GRADER_ERROR, str(error), visible_only)
    outcomes: dict[str, Outcome] = {}
    if exercise.kind == Kind.PREDICT:
        for test in tests:
            outcomes[test.name] = judge(test, RunResult(stdout=source), expected[test.name], Kind.PREDICT)
    else:
        with SubmissionRun(exercise, source, private_paths, backend) as run:
            if meanwhile is not None:
                run.launch()
                meanwhile()
            _run_in_order(exercise, tests, run.run, expected, outcomes, run_all)
    return Report(exercise.id, name, tuple(outcomes[t.name] for t in tests), isolation, visible_only)


def _run_in_order(exercise: Exercise, tests: tuple[Test, ...], run: Callable[[Test], RunResult],
                  expected: dict[str, object], outcomes: dict[str, Outcome], run_all: bool) -> None:
    failed = False
    for test in in_order(tests):
        if test.big and failed and not run_all:
            outcomes[test.name] = _outcome(test, Verdict.SKIPPED, "skipped: a smaller test failed first "
                                           "(grader check --all runs it anyway)")
            continue
        outcome = judge(test, run_once_more_if_borderline(test, run), expected[test.name], exercise.kind)
        failed = failed or outcome.verdict != Verdict.PASSED
        outcomes[test.name] = outcome


def in_order(tests: tuple[Test, ...]) -> list[Test]:
    """Small tests first (fail fast); within each size, visible before hidden: a sandbox that saw a hidden
    test's input never serves a visible one, so an interleaved spec would otherwise start one per switch.
    Stable: the spec's order within each group."""
    return sorted(tests, key=lambda t: (t.big, t.hidden))


def run_once_more_if_borderline(test: Test, run: Callable[[Test], RunResult]) -> RunResult:
    """A run that finished past its CPU limit but within the margin may be the machine's noise, not the
    code: run it again and keep the faster of the two before calling it a timeout."""
    result = run(test)
    if result.timed_out and not result.cpu_killed and not result.wall_timeout:
        again = run(test)
        if again.cpu_seconds < result.cpu_seconds:
            return again
    return result


def judge(test: Test, result: RunResult, expected: object, kind: Kind) -> Outcome:
    """The verdict for one run: what went wrong in the run first, then the checker's word."""
    verdict, feedback, details = verdict_for(test, result)
    actual: object = None
    shown_expected: str | None = None
    if verdict is None:
        actual = result.value if test.compare == "value" and kind == Kind.FUNCTION else result.stdout
        check = CHECKERS[test.checker.name](expected, actual, **dict(test.checker.args))
        verdict = Verdict.PASSED if check.passed else Verdict.WRONG_ANSWER
        feedback, details = check.feedback, check.details
    text_compare = test.compare == "output" or kind != Kind.FUNCTION
    if not test.hidden:
        shown_expected = str(expected) if text_compare else show(expected, 2000)
        actual_text = result.stdout if text_compare else (show(actual, 2000) if result.has_value else None)
    else:
        actual_text, details = None, ""  # a hidden test shows its name and verdict, nothing it could leak
        feedback = _hidden_feedback(verdict, feedback, test)
    return Outcome(
        test=test.name,
        verdict=verdict,
        points=test.points if verdict == Verdict.PASSED else 0.0,
        max_points=test.points,
        hidden=test.hidden,
        big=test.big,
        feedback=feedback,
        details=details,
        expected=shown_expected,
        actual=actual_text,
        # A hidden test's exact time could encode its input: a tenth of a second is all it shows.
        cpu_seconds=round(result.cpu_seconds, 1) if test.hidden else result.cpu_seconds,
        limit_seconds=test.limits.cpu,
    )


def verdict_for(test: Test, result: RunResult) -> tuple[Verdict | None, str, str]:
    """(verdict, feedback, details) when the run itself went wrong; (None, ...) when the checker decides."""
    limit = test.limits
    if result.sandbox_error:
        return Verdict.GRADER_ERROR, result.sandbox_error, ""
    if result.timed_out:
        if result.wall_timeout and result.cpu_seconds < limit.cpu:
            used = f"{result.wall_seconds:.2f} s of {limit.wall_seconds:.2f} s wall clock (it waited or slept)"
        else:
            used = f"{result.cpu_seconds:.2f} s of {limit.cpu:.2f} s CPU"
        where = f" {result.error_message}" if result.error_message else ""
        return Verdict.TIMEOUT, f"time limit exceeded{where}: {used}", ""
    if result.output_truncated:
        return Verdict.OUTPUT_LIMIT, f"printed more than {limit.output} KiB", ""
    if result.error_type == "MemoryError":
        return Verdict.MEMORY_LIMIT, f"ran out of memory (limit {limit.memory} MiB)", result.traceback
    if result.error_type:
        message = f"{result.error_type}: {result.error_message}" if result.error_message else result.error_type
        return Verdict.RUNTIME_ERROR, message, result.traceback
    if result.signal is not None:
        return Verdict.RUNTIME_ERROR, f"the process was killed by signal {result.signal}", ""
    if result.exit_code not in (0, None):
        return Verdict.RUNTIME_ERROR, f"exited with status {result.exit_code}", result.stderr[-2000:]
    return None, "", ""


def _hidden_feedback(verdict: Verdict, feedback: str, test: Test) -> str:
    """Hidden tests say what kind of failure it was, never anything computed from the hidden input."""
    if verdict in (Verdict.PASSED, Verdict.SKIPPED):
        return feedback if verdict == Verdict.SKIPPED else ""
    if verdict == Verdict.TIMEOUT:
        return feedback  # the limit and the time used
    if verdict == Verdict.RUNTIME_ERROR:
        return feedback.split(":", 1)[0]  # the exception class, not its message (it may quote the input)
    return {Verdict.WRONG_ANSWER: "wrong answer", Verdict.MEMORY_LIMIT: feedback,
            Verdict.OUTPUT_LIMIT: feedback}.get(verdict, feedback)


def _outcome(test: Test, verdict: Verdict, feedback: str) -> Outcome:
    return Outcome(test=test.name, verdict=verdict, points=0.0, max_points=test.points, hidden=test.hidden,
                   big=test.big, feedback=feedback, limit_seconds=test.limits.cpu)


def _all(exercise: Exercise, tests: tuple[Test, ...], name: str, isolation: str, verdict: Verdict,
         feedback: str, visible_only: bool) -> Report:
    outcomes = tuple(_outcome(t, verdict, feedback) for t in tests)
    return Report(exercise.id, name, outcomes, isolation, visible_only)

