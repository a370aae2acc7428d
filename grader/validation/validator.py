"""Validate one exercise: its references, its expectations, its checkers and its time limits."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from grader.calibration import CalibrationError, apply, calibrate
from grader.course import Course
from grader.expected import ExpectationError
from grader.kinds import kind_of
from grader.model import MISSING, Exercise
from grader.search import search_failures
from grader.yaml_surprises import surprising_scalars
from grader.validation.pinning import unpinned_equals
from grader.validation.expectations import checker_failures, expectation_failures, input_failures, produced_values
from grader.validation.references import ACCEPTED, TooSlowRun, check_reference, find_references
from grader.validation.results import ExerciseValidation
from grader.validation.timing import timing_rows
from grader.words import count

PLACEHOLDER = "TODO"  # what `grader new` leaves in the title and statement for the instructor to replace


def validate_exercise(course: Course, exercise_id: str, *, recalibrate: bool = False,
                      variants: int = 0) -> ExerciseValidation:
    """Every check of `grader validate` on one exercise. A broken spec raises SpecError before anything runs.
    An exercise with params is proved on `variants` of its variants instead (grader.variants.proof)."""
    started = time.monotonic()
    written = course.load_as_written(exercise_id)
    if written.params is not None:
        from grader.variants.proof import DEFAULT_COUNT, prove

        return prove(course, written, variants or DEFAULT_COUNT)
    result = ExerciseValidation(written)
    for where, text in (("title", written.title), ("statement", written.statement)):
        if PLACEHOLDER in text:
            result.fail(f"the {where} still says {PLACEHOLDER}: write it")
    references, problems = find_references(written)
    result.failures += problems
    unwritten = [r for r in references if r.path.is_file() and _scaffold_todo(r.path)]
    if unwritten:  # first: the failures below (a reference that raises) follow from these
        result.fail(f"write the TODO in {count(len(unwritten), 'reference')} that grader new left: "
                    + ", ".join(f"{r.folder}/{r.path.name}" for r in unwritten) + f" (in {written.reference_dir})")
    result.notes += _notes(written, [r.folder for r in references])
    result.notes += [str(problem) for problem in surprising_scalars(written.path)]
    result.notes += unpinned_equals(written)
    accepted = [r for r in references if r.folder == ACCEPTED]
    runs_code = kind_of(written.kind).runs_code  # a predict exercise's answers come from its snippet
    if runs_code and not accepted:
        result.fail(f"no accepted reference in {written.reference_dir / ACCEPTED}: add at least one solution "
                    f"(a plain one and a fast one)")
    exercise = written
    if accepted and runs_code:
        try:
            result.calibration = calibrate(written, force=recalibrate)
        except CalibrationError as error:
            result.fail(f"cannot set the time limits: {error}")
            result.timing_error = str(error)
        if result.calibration is not None:
            exercise = apply(written, result.calibration)
    # Every test shown in full while validating: a hidden test's feedback is the instructor's to read.
    shown = replace(exercise, tests=tuple(replace(t, hidden=False) for t in exercise.tests),
                    search=replace(exercise.search, hidden=False) if exercise.search is not None else None)
    too_slow: list[TooSlowRun] = []
    if not _check_expectations(shown, result):
        references = []  # every test would be a grader error: one line above says why
        result.fail("references not graded: there is nothing to compare their answers with")
    for reference in references:
        check, runs = check_reference(course, shown, reference)
        result.references.append(check)
        too_slow += runs
        if not check.ok:
            result.fail(f"{reference.folder}/{reference.path.name}: {check.reason}")
    result.failures += search_failures(shown, [(c.expected, c.path.name, c.verdicts) for c in result.references])
    result.timing = timing_rows(shown, result.calibration, result.references, too_slow)
    result.failures += [f"test '{row.test}': {row.reason}" for row in result.timing if not row.ok]
    result.seconds = time.monotonic() - started
    return result


def _check_expectations(exercise: Exercise, result: ExerciseValidation) -> bool:
    """Written expectations confirmed and checkers sane; False when there are no expected values at all."""
    try:
        produced = produced_values(exercise)
    except ExpectationError as error:
        result.fail(f"the expected values cannot be produced: {error}")
        return False
    result.failures += expectation_failures(exercise, produced)
    expected = {t.name: produced[t.name] if t.expect is MISSING else t.expect for t in exercise.tests}
    result.failures += checker_failures(exercise, expected)
    result.failures += input_failures(exercise)
    return True


def _scaffold_todo(path: Path) -> bool:
    """Whether a reference still holds what `grader new` wrote: its TODO docstring or its TODO raise."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:4000]
    except OSError:
        return False
    return text.startswith(f'"""{PLACEHOLDER}') or f'NotImplementedError("{PLACEHOLDER}' in text \
        or text.startswith(f"{PLACEHOLDER}:")


def _notes(exercise: Exercise, folders: list[str]) -> list[str]:
    """What is missing without being wrong: each is worth a reference of its own."""
    if not kind_of(exercise.kind).runs_code:  # answers, not code: no speed to prove
        return [] if "wrong_answer" in folders else ["no wrong_answer reference: add the answers students get wrong"]
    notes = []
    if folders.count(ACCEPTED) == 1:
        notes.append("one accepted reference: add a second style (a plain one and a fast one)")
    if "wrong_answer" not in folders:
        notes.append("no wrong_answer reference: add the mistakes the tests must catch")
    if any(t.big for t in exercise.tests) and "timeout" not in folders:
        notes.append("big tests but no timeout reference: nothing shows the limit stops a slow solution")
    return notes
