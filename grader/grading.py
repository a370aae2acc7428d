"""Grade one submission: static checks, then each test run, checked and turned into an Outcome."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from grader.compat import StrEnum
from grader.environment import report_note
from grader.expected import ExpectationError, expected_values
from grader.kinds import kind_of
from grader.handins.base import Context, Handin
from grader.model import Exercise, Outcome, Report, RunResult, Test, Verdict
from grader.quality.data import QualityResult
from grader.text import bounded
from grader.records import record
from grader.replies import captured
from grader.rules import check_rules
from grader.running import SubmissionRun
from grader.readers import Reader  # who reads the result: the one rule of what each sees
from grader.sandbox import Backend, default_backend
from grader.staff import staff_details
from grader.verdicts import judge, run_once_more_if_borderline

NOTHING_RUN = "no sandbox: the answer is read as text, never run"  # the isolation line of such a report
LOADING = "while loading the file"  # how feedback says a problem stopped the file before any test


def read_submission(path: Path, exercise: Exercise, context: Context | None = None) -> Handin:
    """What was handed in at `path` (a file, notebook, folder or zip), or why it cannot be graded."""
    from grader.handins import read_handin  # the forms, only when a path is read here

    return read_handin(path, exercise, context=context)


class Pace(StrEnum):
    """How far a grading goes once a test fails."""

    EVERY_TEST = "every-test"  # a grade (batch, platforms, validate, --all): every test runs, for the score
    FAIL_FAST = "fail-fast"  # a student at a terminal: big tests skipped after a failure, the rest after a timeout


@record
class GradingRequest:
    """What a caller of `grade` wants: every entry point says it here, and nothing else changes the grade."""

    pace: Pace = Pace.EVERY_TEST
    reader: Reader = Reader.STUDENT
    visible_only: bool = False  # a student bundle: its hidden tests are not there
    private_paths: tuple[Path, ...] = ()  # folders no sandbox may see (the course's, the bundle's)
    label: str | None = None  # the submission as reports name it (default: its path)
    attempt: int | None = None  # which check of this exercise it is (a prediction shows its answer after a few)


def grade(exercise: Exercise, submission: Path, request: GradingRequest = GradingRequest(), *,
          handin: str | Handin | None = None, expected: dict[str, object] | None = None,
          backend: Backend | None = None, meanwhile: Callable[[], object] | None = None) -> Report:
    """Every test's outcome, in the spec's order: the one path every entry point grades through.
    `handin`: what was handed in, already read by the caller (a batch's worker), or a file's text; default:
    read from `submission`. `expected`: every test's expected answer, as `expected_values` gives it (a batch
    computes it once for the class); default: computed or read from the cache here.
    `backend`: the sandbox to run the tests in (default: the real one, under the layers detected here).
    `meanwhile`: the caller's own work (it returns at once, its work on a thread of its own): given, the
    sandbox starts before the hand-in is read and checked, to boot meanwhile, and the work starts just
    after it. A question that runs no code starts neither."""
    tests = tuple(t for t in exercise.tests if not (request.visible_only and t.hidden))
    name = request.label or str(submission)
    read = handin if isinstance(handin, Handin) else Handin(source=handin) if handin is not None else None
    unexpected = ""  # why there are no expected answers: a grader error, once the hand-in itself is fine
    try:
        # Before any sandbox starts: computing them runs the reference in a sandbox of this process's uid.
        expected = expected if expected is not None else expected_values(exercise)
    except ExpectationError as error:
        expected, unexpected = {}, str(error)
    if not kind_of(exercise.kind).runs_code:
        return _judged_as_text(exercise, tests, name, read or read_submission(submission, exercise),
                               request, expected, unexpected)
    backend = backend or default_backend()
    backend.prepare()
    isolation = backend.describe() + report_note(exercise.path)  # the course's environment named too
    with SubmissionRun(exercise, private_paths=request.private_paths, backend=backend,
                       file_name=Path(name).name) as run:
        if meanwhile is not None:
            run.launch()  # closed unused if the hand-in cannot run
            meanwhile()
        read = read or read_submission(submission, exercise)
        refused = _refusal(exercise, read, name) or (unexpected and (Verdict.GRADER_ERROR, unexpected, "")) or None
        if refused is not None:
            verdict, feedback, details = refused
            return _all(exercise, tests, name, isolation, verdict, feedback, request.visible_only, details)
        run.submit(read.source, read.modules)
        quality = _quality(exercise, read.source)  # ruff reads the file while the sandbox loads it
        outcomes: dict[str, Outcome] = {}
        seen: dict[str, RunResult] = {}
        _run_in_order(tests, _recording(run.run, seen), expected, outcomes, request.pace)
        first = _load_failure(tests, run.load_failure, outcomes)
        if first is not None:  # no test ran: one problem of the whole file, told the same for all
            return read.annotate(replace(_all(exercise, tests, name, isolation, first.verdict, first.feedback,
                                              request.visible_only, first.details), quality=quality))
        searched = _searched(exercise, run, expected, backend, request, outcomes)
    staff = staff_details(tests, seen, expected) if request.reader is Reader.STAFF else ()
    report = Report(exercise.id, name, tuple(_sourced(outcomes[t.name], t) for t in tests) + searched, isolation,
                    request.visible_only, staff=staff, quality=quality, variant=exercise.variant)
    return read.annotate(report)


def _quality(exercise: Exercise, source: str) -> QualityResult | None:
    """The spec's `quality:` on a hand-in that parses (one that does not gets no test run, nor this)."""
    if exercise.quality is None:
        return None
    from grader.quality.judge import check_quality  # only for an exercise that has quality

    return check_quality(exercise.quality, source, exercise.starter, exercise.max_score)


def _searched(exercise: Exercise, run: SubmissionRun, expected: dict[str, object], backend: Backend,
              request: GradingRequest, outcomes: dict[str, Outcome]) -> tuple[Outcome, ...]:
    """The spec's `search:` outcome, after the tests (grader/search); none without one."""
    if exercise.search is None or request.visible_only:
        return ()
    from grader.search import searched

    stopped = request.pace is Pace.FAIL_FAST and any(o.verdict == Verdict.TIMEOUT for o in outcomes.values())
    skip = "skipped: a test before it ran out of time (grader check --all runs it anyway)" if stopped else ""
    found = searched(exercise, run, expected, backend, request.private_paths, skip)
    return (found,) if found is not None else ()


def _refusal(exercise: Exercise, handin: Handin, name: str) -> tuple[Verdict, str, str] | None:
    """Why the hand-in cannot run at all (unreadable, a syntax error, a broken rule): the verdict, feedback
    and details of every test; None when it can."""
    if not handin.ok:
        return handin.refused_verdict, handin.refused, ""
    try:
        tree = ast.parse(handin.source, filename=Path(name).name)
        violations = check_rules(tree, exercise.require, exercise.forbid)
    except SyntaxError as error:
        where = f"{handin.where(error.lineno)}: " if error.lineno else ""
        return Verdict.SYNTAX_ERROR, f"{where}{error.msg}", _caret(error)
    except (RecursionError, MemoryError):  # `return ` + 5000 minus signs: the parser's own stack runs out
        return Verdict.SYNTAX_ERROR, "the code nests too deeply for Python to read (operators or brackets " \
                                     "inside each other thousands deep)", ""
    if violations:
        return Verdict.RULE_VIOLATION, "; ".join(v.message for v in violations), ""
    return None


def _judged_as_text(exercise: Exercise, tests: tuple[Test, ...], name: str, handin: Handin,
                    request: GradingRequest, expected: dict[str, object], unexpected: str) -> Report:
    """A kind whose hand-in is read, not run (a prediction): judged here, in the grader."""
    if not handin.ok or unexpected:
        verdict, why = (handin.refused_verdict, handin.refused) if not handin.ok else (Verdict.GRADER_ERROR, unexpected)
        return _all(exercise, tests, name, NOTHING_RUN, verdict, why, request.visible_only)
    kind = kind_of(exercise.kind)
    outcomes = []
    for test in tests:
        judged = judge(test, kind.judged_here(handin.source), expected[test.name])
        reviewed = kind.review(exercise, judged, handin.source, expected[test.name], request.attempt)
        outcomes.append(_sourced(bounded(reviewed, test.limits.output), test))  # what it says, bounded too
    return handin.annotate(Report(exercise.id, name, tuple(outcomes), NOTHING_RUN, request.visible_only,
                                  variant=exercise.variant))


def _recording(run: Callable[[Test], RunResult], seen: dict[str, RunResult]) -> Callable[[Test], RunResult]:
    def recorded(test: Test) -> RunResult:
        seen[test.name] = result = run(test)
        return result
    return recorded


def _sourced(outcome: Outcome, test: Test) -> Outcome:
    return replace(outcome, limit_source=test.limits.cpu_origin)


def _run_in_order(tests: tuple[Test, ...], run: Callable[[Test], RunResult], expected: dict[str, object],
                  outcomes: dict[str, Outcome], pace: Pace) -> None:
    failed = timed_out = False
    fail_fast = pace is Pace.FAIL_FAST
    for test in in_order(tests):
        if timed_out:
            outcomes[test.name] = _outcome(test, Verdict.SKIPPED, "skipped: a test before it ran out of time "
                                           "(grader check --all runs it anyway)")
            continue
        if test.big and failed and fail_fast:
            outcomes[test.name] = _outcome(test, Verdict.SKIPPED, "skipped: a smaller test failed first "
                                           "(grader check --all runs it anyway)")
            continue
        result = run_once_more_if_borderline(test, run)
        outcome = captured(judge(test, result, expected[test.name]), test, result)
        failed = failed or outcome.verdict != Verdict.PASSED
        timed_out = fail_fast and outcome.verdict == Verdict.TIMEOUT
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
    if LOADING not in first.feedback and first.verdict != Verdict.GRADER_ERROR:  # a sandbox that never started
        first = replace(first, feedback=f"{LOADING}: {first.feedback}")
    return first


def in_order(tests: tuple[Test, ...]) -> list[Test]:
    """Small tests first (fail fast); within each size, visible before hidden: a sandbox that saw a hidden
    test's input never serves a visible one, so an interleaved spec would otherwise start one per switch.
    Stable: the spec's order within each group."""
    return sorted(tests, key=lambda t: (t.big, t.hidden))


def _outcome(test: Test, verdict: Verdict, feedback: str) -> Outcome:
    return Outcome(test=test.name, verdict=verdict, points=0.0, max_points=test.points, hidden=test.hidden,
                   big=test.big, feedback=feedback, limit_seconds=test.limits.cpu,
                   limit_source=test.limits.cpu_origin)


def _all(exercise: Exercise, tests: tuple[Test, ...], name: str, isolation: str, verdict: Verdict,
         feedback: str, visible_only: bool, details: str = "") -> Report:
    """The same outcome for every test: a problem of the whole file (it reveals nothing of a hidden test)."""
    outcomes = tuple(replace(_outcome(t, verdict, feedback), details=details) for t in tests)
    if exercise.search is not None and not visible_only:  # the search, told the same
        from grader.search import uniform

        outcomes += (replace(uniform(exercise.search, verdict, feedback), details=details),)
    return Report(exercise.id, name, outcomes, isolation, visible_only, variant=exercise.variant)


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

