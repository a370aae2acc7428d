"""Grade one submission: static checks, then each test run, checked and turned into an Outcome."""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from pathlib import Path

from grader.expected import ExpectationError, expected_values
from grader.kinds import kind_of
from grader.model import Exercise, Outcome, Report, RunResult, Test, Verdict
from grader.rules import check_rules
from grader.running import SubmissionRun
from grader.sandbox import Backend, default_backend
from grader.verdicts import judge, run_once_more_if_borderline

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
    kind = kind_of(exercise.kind)
    backend = backend or default_backend()
    if kind.runs_code:
        backend.prepare()
    isolation = backend.describe()
    name = label or str(submission)
    source, problem = (source, "") if source is not None else read_submission(submission)
    if source is None:
        return _all(exercise, tests, name, isolation, Verdict.RUNTIME_ERROR, problem, visible_only)
    if kind.runs_code:
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
    if not kind.runs_code:
        for test in tests:
            outcomes[test.name] = judge(test, kind.judged_here(source), expected[test.name])
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
        outcome = judge(test, run_once_more_if_borderline(test, run), expected[test.name])
        failed = failed or outcome.verdict != Verdict.PASSED
        outcomes[test.name] = outcome


def in_order(tests: tuple[Test, ...]) -> list[Test]:
    """Small tests first (fail fast); within each size, visible before hidden: a sandbox that saw a hidden
    test's input never serves a visible one, so an interleaved spec would otherwise start one per switch.
    Stable: the spec's order within each group."""
    return sorted(tests, key=lambda t: (t.big, t.hidden))


def _outcome(test: Test, verdict: Verdict, feedback: str) -> Outcome:
    return Outcome(test=test.name, verdict=verdict, points=0.0, max_points=test.points, hidden=test.hidden,
                   big=test.big, feedback=feedback, limit_seconds=test.limits.cpu)


def _all(exercise: Exercise, tests: tuple[Test, ...], name: str, isolation: str, verdict: Verdict,
         feedback: str, visible_only: bool) -> Report:
    outcomes = tuple(_outcome(t, verdict, feedback) for t in tests)
    return Report(exercise.id, name, outcomes, isolation, visible_only)

