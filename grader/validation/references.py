"""The references of an exercise, graded by the real grader; each must get the verdict its folder names.

`reference/<id>/accepted/` must pass every test. Any other folder is named for a verdict: each file in it
must get that verdict on at least one test and nothing worse (by Verdict order) on any other. Files in
`timeout/` are graded once with every CPU limit raised to 1.5 x its value: what times out there also
times out at the limit, and what only times out at the limit is too close to it (the limit does not
separate it from a correct submission on a busy machine; grader.validation.timing reports that). They are
stopped by the sandbox, never awaited.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from grader.course import Course
from grader.grading import GradingRequest, Pace, grade
from grader.kinds import kind_of
from grader.model import Exercise, Outcome, Verdict
from grader.records import record
from grader.validation.results import ReferenceCheck

ACCEPTED = "accepted"
VERDICT_FOLDERS = (Verdict.WRONG_ANSWER, Verdict.TIMEOUT, Verdict.RUNTIME_ERROR, Verdict.MEMORY_LIMIT,
                   Verdict.OUTPUT_LIMIT, Verdict.SYNTAX_ERROR, Verdict.RULE_VIOLATION)
FOLDERS = (ACCEPTED, *(str(v) for v in VERDICT_FOLDERS))
TOO_SLOW_FACTOR = 1.5  # a too-slow reference must still time out at this many times the limit (as Kattis)
# Verdicts that come from running the code: a run that went past the limit would have been stopped first.
RUN_VERDICTS = (Verdict.PASSED, Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR, Verdict.MEMORY_LIMIT,
                Verdict.OUTPUT_LIMIT)


@record
class Reference:
    path: Path
    folder: str  # "accepted" or a verdict's name


@record
class TooSlowRun:
    """A timeout reference on one test: its CPU time with the limit at 1.5 x, and what that means."""

    reference: str
    test: str
    seconds: float
    times_out_at_limit: bool
    times_out_at_margin: bool


def find_references(exercise: Exercise) -> tuple[list[Reference], list[str]]:
    """The reference files, accepted first, and a failure line for each folder with an unknown name."""
    root = exercise.reference_dir
    suffix = kind_of(exercise.kind).suffix
    found: list[Reference] = []
    problems = []
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))) \
        if root.is_dir() else []
    for folder in folders:
        if folder.name not in FOLDERS:
            close = difflib.get_close_matches(folder.name, FOLDERS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f"; known folders: {', '.join(FOLDERS)}"
            problems.append(f"{folder}: unknown verdict folder '{folder.name}'{hint}")
            continue
        for path in sorted(folder.iterdir()):
            if path.name.startswith((".", "__")):
                continue
            if _is_reference(path, suffix):
                found.append(Reference(path, folder.name))
            else:
                problems.append(f"{path}: not a reference (a *{suffix} file"
                                + (", a notebook, a zip or a folder)" if suffix == ".py" else ")")
                                + "; move it out of reference/ or rename it")
    found.sort(key=lambda r: (FOLDERS.index(r.folder), r.path.name))
    return found, problems


def _is_reference(path: Path, suffix: str) -> bool:
    """A hand-in as students hand them in: the kind's file, or for Python a notebook, a zip or a folder."""
    if suffix != ".py":
        return path.is_file() and path.suffix == suffix
    return path.is_dir() or path.suffix.lower() in (suffix, ".ipynb", ".zip")


def check_reference(course: Course, exercise: Exercise, reference: Reference) -> tuple[ReferenceCheck, list[TooSlowRun]]:
    """Grade one reference (every test run, none skipped) and judge its verdicts against its folder."""
    private = course.private_paths()
    label = f"{reference.folder}/{reference.path.name}"
    if reference.folder == str(Verdict.TIMEOUT):
        raised = _with_cpu_times(exercise, TOO_SLOW_FACTOR)
        report = grade(raised, reference.path, GradingRequest(Pace.EVERY_TEST, private_paths=private, label=label))
        limits = {t.name: t.limits.cpu for t in exercise.tests}
        if exercise.search is not None:  # its outcome comes last
            limits[exercise.search.name] = exercise.search.limits.cpu
        runs = [_too_slow_run(label, o, limits[o.test]) for o in report.outcomes]
        verdicts = tuple(Verdict.TIMEOUT if run.times_out_at_limit else o.verdict
                         for run, o in zip(runs, report.outcomes))
        check = _judge(reference, verdicts, report.outcomes, exercise)
        return check, [r for r in runs if r.times_out_at_limit]
    report = grade(exercise, reference.path, GradingRequest(Pace.EVERY_TEST, private_paths=private, label=label))
    return _judge(reference, tuple(o.verdict for o in report.outcomes), report.outcomes, exercise), []


def _with_cpu_times(exercise: Exercise, factor: float) -> Exercise:
    """Every CPU limit times `factor`. The wall-clock backstop, unless the spec writes one, becomes 10 x the CPU
    limit: on a busy machine the default (3 x + 2 s) can stop a CPU-bound run before its CPU time says anything."""
    tests = []
    for test in exercise.tests:
        cpu = round(test.limits.cpu * factor, 3)
        wall = test.limits.wall * factor if test.limits.wall is not None else 10 * cpu + 2
        tests.append(replace(test, limits=replace(test.limits, cpu=cpu, wall=wall)))
    return replace(exercise, tests=tuple(tests))


def _too_slow_run(label: str, outcome: Outcome, limit: float) -> TooSlowRun:
    at_margin = outcome.verdict == Verdict.TIMEOUT
    at_limit = at_margin or (outcome.verdict in RUN_VERDICTS and outcome.cpu_seconds > limit)
    return TooSlowRun(label, outcome.test, outcome.cpu_seconds, at_limit, at_margin)


def _judge(reference: Reference, verdicts: tuple[Verdict, ...], outcomes: tuple[Outcome, ...],
           exercise: Exercise) -> ReferenceCheck:
    got = min(verdicts, key=lambda v: v.severity) if verdicts else None
    base = ReferenceCheck(reference.path, reference.folder, got, verdicts, ok=True,
                          seconds=tuple(o.cpu_seconds for o in outcomes))
    if got is None:
        return replace(base, ok=False, reason="no test ran")
    if reference.folder == ACCEPTED:
        failed = [(o, v) for o, v in zip(outcomes, verdicts) if v != Verdict.PASSED]
        if failed:
            return replace(base, ok=False, reason=_failed_tests(failed))
        return base
    wanted = Verdict(reference.folder)
    worse = [(o, v) for o, v in zip(outcomes, verdicts) if v.severity < wanted.severity]
    if worse:
        return replace(base, ok=False, reason=f"worse than {wanted}: {_failed_tests(worse)}")
    if wanted not in verdicts:
        if got == Verdict.PASSED:
            why = ("the limit does not stop it: it passes every test" if wanted == Verdict.TIMEOUT
                   else "it passes every test: no test catches this mistake; add a test that does")
        else:
            why = f"it gets {got} at worst, never {wanted}"
        return replace(base, ok=False, reason=f"expected {wanted} on at least one test, but {why}")
    return base


def _failed_tests(failed: Sequence[tuple[Outcome, Verdict]], most: int = 2) -> str:
    parts = []
    for outcome, verdict in failed[:most]:
        feedback = f": {outcome.feedback}" if outcome.feedback else ""
        parts.append(f"{verdict} on '{outcome.test}'{feedback}")
    more = f" (and {len(failed) - most} more)" if len(failed) > most else ""
    return "; ".join(parts) + more
