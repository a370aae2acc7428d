"""Grade one submission: static checks, then each test run, checked and turned into an Outcome."""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from grader.expected import ExpectationError, expected_values
from grader.kinds import kind_of
from grader.model import Exercise, Outcome, Report, RunResult, Test, Verdict
from grader.rules import check_rules
from grader.running import SubmissionRun
from grader.sandbox import Backend, default_backend
from grader.verdicts import judge, run_once_more_if_borderline

MAX_SUBMISSION_BYTES = 1 << 20
LOADING = "while loading the file"  # how feedback says a problem stopped the file before any test


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
          backend: Backend | None = None, meanwhile: Callable[[], object] | None = None,
          stop_after_timeout: bool = False, attempt: int | None = None) -> Report:
    """Every test's outcome, in the spec's order. Small tests run first; once one fails, big tests are
    skipped unless `run_all`. `visible_only` grades a student bundle, whose hidden tests are not there.
    `source`: the file's text, already read by the caller and vetted as `read_submission` does (a batch).
    `backend`: the sandbox to run the tests in (default: the real one, under the layers detected here).
    `meanwhile`: the caller's own work, done while the sandbox starts and loads the file; not called when
    no sandbox is started (a predict question, a file that does not parse, a broken rule or expectation).
    `stop_after_timeout`: once a test times out, the tests left are not run (a student's check answers in
    about one limit; a batch runs every test, for the score). `attempt`: which check of this exercise this
    is for the student (`grader check` counts them; a predict question shows its answer after a few)."""
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
            tree = ast.parse(source, filename=Path(name).name)
        except SyntaxError as error:
            where = f"line {error.lineno}: " if error.lineno else ""
            return _all(exercise, tests, name, isolation, Verdict.SYNTAX_ERROR, f"{where}{error.msg}", visible_only,
                        _caret(error))
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
            judged = judge(test, kind.judged_here(source), expected[test.name])
            outcomes[test.name] = kind.review(exercise, judged, source, expected[test.name], attempt)
    else:
        with SubmissionRun(exercise, source, private_paths, backend, file_name=Path(name).name) as run:
            if meanwhile is not None:
                run.launch()
                meanwhile()
            _run_in_order(exercise, tests, run.run, expected, outcomes, run_all, stop_after_timeout)
            first = _load_failure(tests, run.load_failure, outcomes)
            if first is not None:  # no test ran: one problem of the whole file, told the same for all
                return _all(exercise, tests, name, isolation, first.verdict, first.feedback, visible_only,
                            first.details)
    return Report(exercise.id, name, tuple(outcomes[t.name] for t in tests), isolation, visible_only)


def _run_in_order(exercise: Exercise, tests: tuple[Test, ...], run: Callable[[Test], RunResult],
                  expected: dict[str, object], outcomes: dict[str, Outcome], run_all: bool,
                  stop_after_timeout: bool = False) -> None:
    failed = timed_out = False
    for test in in_order(tests):
        if timed_out and not run_all:
            outcomes[test.name] = _outcome(test, Verdict.SKIPPED, "skipped: a test before it ran out of time "
                                           "(grader check --all runs it anyway)")
            continue
        if test.big and failed and not run_all:
            outcomes[test.name] = _outcome(test, Verdict.SKIPPED, "skipped: a smaller test failed first "
                                           "(grader check --all runs it anyway)")
            continue
        outcome = judge(test, run_once_more_if_borderline(test, run), expected[test.name])
        failed = failed or outcome.verdict != Verdict.PASSED
        timed_out = stop_after_timeout and outcome.verdict == Verdict.TIMEOUT
        outcomes[test.name] = outcome


def _load_failure(tests: tuple[Test, ...], failure: RunResult | None, outcomes: dict[str, Outcome]) -> Outcome | None:
    """The outcome of a file that never loaded, as a visible test sees it (the load saw no test's input); None
    when some test did run (a file that failed to load only on a later start)."""
    if failure is None or not tests:
        return None
    first = judge(replace(in_order(tests)[0], hidden=False), failure, None)
    ran = [o for o in outcomes.values() if o.verdict != Verdict.SKIPPED]
    if not all(o.verdict == first.verdict for o in ran):
        return None
    if LOADING not in first.feedback:
        first = replace(first, feedback=f"{LOADING}: {first.feedback}")
    return first


def in_order(tests: tuple[Test, ...]) -> list[Test]:
    """Small tests first (fail fast); within each size, visible before hidden: a sandbox that saw a hidden
    test's input never serves a visible one, so an interleaved spec would otherwise start one per switch.
    Stable: the spec's order within each group."""
    return sorted(tests, key=lambda t: (t.big, t.hidden))


def _outcome(test: Test, verdict: Verdict, feedback: str) -> Outcome:
    return Outcome(test=test.name, verdict=verdict, points=0.0, max_points=test.points, hidden=test.hidden,
                   big=test.big, feedback=feedback, limit_seconds=test.limits.cpu)


def _all(exercise: Exercise, tests: tuple[Test, ...], name: str, isolation: str, verdict: Verdict,
         feedback: str, visible_only: bool, details: str = "") -> Report:
    """The same outcome for every test: a problem of the whole file (it reveals nothing of a hidden test)."""
    outcomes = tuple(replace(_outcome(t, verdict, feedback), details=details) for t in tests)
    return Report(exercise.id, name, outcomes, isolation, visible_only)


def _caret(error: SyntaxError) -> str:
    """The offending line with a caret under the place Python points at, as Python prints it."""
    if not error.text or not error.offset:
        return ""
    line = error.text.rstrip("\n").expandtabs(8)
    stripped = line.lstrip()
    indent = len(line) - len(stripped)
    start = max(error.offset - 1 - indent, 0)
    end = error.end_offset - 1 - indent if error.end_offset and error.end_offset > error.offset and \
        error.end_lineno in (None, error.lineno) else start + 1
    return f"    {stripped}\n    {' ' * start}{'^' * max(end - start, 1)}"

