"""From the class on disk to work: exercises with their expected values filled in, a content key for every
submission, one job per distinct key, and the reports that need no sandbox (missing or unreadable files)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from grader.batch.discover import ClassFolder, extension
from grader.batch.store import ExerciseRow, SubmissionRow
from grader.batch.work import GradingKey, Job, pack, uniform_report
from grader.errors import SpecError, SpecProblem
from grader.expected import ExpectationError, expected_values
from grader.grading import grade, read_submission
from grader.model import Exercise, Report, Verdict
from grader.platforms import DISTRIBUTION


def grader_version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"


@dataclass
class Plan:
    exercises: list[Exercise]  # expected values filled in, in id order
    exercise_rows: list[ExerciseRow]
    rows: list[SubmissionRow]  # student x exercise -> key
    jobs: dict[GradingKey, Job] = field(default_factory=dict)  # one per distinct submission, for the sandbox
    settled: dict[GradingKey, Report] = field(default_factory=dict)  # graded here: nothing to run

    def students_of(self) -> dict[GradingKey, int]:
        """How many student submissions each key stands for (identical submissions share a key)."""
        counts: dict[GradingKey, int] = {}
        for row in self.rows:
            counts[row.key] = counts.get(row.key, 0) + 1
        return counts


def make_plan(folder: ClassFolder, exercises: list[Exercise], *, run_all: bool,
              private_paths: tuple[Path, ...]) -> Plan:
    resolved = [resolve(exercise) for exercise in exercises]
    version_ = grader_version()
    plan = Plan([e for e, _ in resolved], [], [])
    for exercise, digest in resolved:
        packed = pack(exercise)
        tests = [{"name": t.name, "points": t.points, "hidden": t.hidden, "big": t.big} for t in exercise.tests]
        plan.exercise_rows.append(ExerciseRow(exercise.id, exercise.title, str(exercise.kind), digest,
                                              exercise.max_score, tests))
        key = partial(GradingKey, exercise=digest, grader=version_, run_all=run_all)
        for student in folder.students:
            found = folder.found[(student, exercise.id)]
            file = str(found.path.relative_to(folder.root)) if found.path else None
            if found.refused:  # before missing: a refused hand-in (a folder that is a link) has no path
                row_key = key("refused:" + _sha256(found.refused.encode()))
                plan.settled[row_key] = uniform_report(exercise, found.label, Verdict.RUNTIME_ERROR, found.refused)
            elif found.path is None:
                row_key = key("missing")  # one grading shared by every student without the file
                plan.settled[row_key] = uniform_report(
                    exercise, found.label, Verdict.MISSING,
                    f"no {exercise.id}.{extension(exercise)} in the student's folder (nor a name that the "
                    f"batch's --match rule accepts)")
            else:
                text, problem = read_submission(found.path)
                if text is None:
                    # Unreadable, binary, huge or not UTF-8: grade() says so without running anything.
                    row_key = key("unreadable:" + _sha256(problem.encode()))
                    if row_key not in plan.settled:
                        plan.settled[row_key] = grade(exercise, found.path, run_all=run_all, label=found.label)
                else:
                    row_key = key(_sha256(text.encode("utf-8")))
                    if row_key not in plan.jobs:
                        plan.jobs[row_key] = Job(row_key, packed, found.label, text, private_paths)
            plan.rows.append(SubmissionRow(student, exercise.id, file, row_key))
    return plan


def resolve(exercise: Exercise) -> tuple[Exercise, str]:
    """The exercise with every expected value written in (computed once here, in the main process), and a
    digest of everything its grades depend on: the spec's text and those values."""
    try:
        values = expected_values(exercise)
    except ExpectationError as error:
        raise SpecError([SpecProblem(exercise.path, 1, 1, f"cannot grade {exercise.id}: {error}")]) from error
    tests = tuple(replace(t, expect=values[t.name]) for t in exercise.tests)
    digest = hashlib.sha256(exercise.id.encode() + b"\0" + exercise.path.read_bytes())
    for test in tests:
        digest.update(b"\0" + canonical(test.expect).encode())
    return replace(exercise, tests=tests), digest.hexdigest()


def canonical(value: object) -> str:
    """A text that is equal for equal values in every process (a set's order changes with the hash seed)."""
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}{{{','.join(sorted(canonical(v) for v in value))}}}"
    if isinstance(value, dict):
        return "dict{" + ",".join(sorted(f"{canonical(k)}:{canonical(v)}" for k, v in value.items())) + "}"
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__}[{','.join(canonical(v) for v in value)}]"
    return repr(value)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
