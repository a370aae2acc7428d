"""From the class on disk to work: exercises with their expected values filled in, a content key for every
submission, one job per distinct key, and the reports that need no sandbox (missing or unreadable files)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from grader.batch.discover import ClassFolder, NameRule, extension
from grader.batch.store import ExerciseRow, SubmissionRow
from grader.grading import grade, read_submission
from grader.handins import Context, Handin
from grader.model import Exercise, Report, Verdict
from grader.variants import variant_of
from grader.variants.detect import Candidate
from grader.version import grader_version
from grader.workers.job import GradingKey, Job, job_request, pack, resolve, sha256, uniform_report


@dataclass
class Plan:
    exercises: list[Exercise]  # in id order
    exercise_rows: list[ExerciseRow]
    rows: list[SubmissionRow]  # student x exercise -> key
    jobs: dict[GradingKey, Job] = field(default_factory=dict)  # one per distinct submission, for the sandbox
    settled: dict[GradingKey, Report] = field(default_factory=dict)  # graded here: nothing to run
    # params: (student, exercise) -> their variant's id; exercise -> variant id -> the variant, for the detector
    variants: dict[tuple[str, str], str] = field(default_factory=dict)
    candidates: dict[str, dict[str, Candidate]] = field(default_factory=dict)
    resolved: dict[tuple[str, str], tuple[Exercise, dict[str, object], str, bytes]] = field(default_factory=dict)

    def students_of(self) -> dict[GradingKey, int]:
        """How many student submissions each key stands for (identical submissions share a key)."""
        counts: dict[GradingKey, int] = {}
        for row in self.rows:
            counts[row.key] = counts.get(row.key, 0) + 1
        return counts


def make_plan(folder: ClassFolder, exercises: list[Exercise], *,
              private_paths: tuple[Path, ...], rule: NameRule | None = None) -> Plan:
    resolved = [resolve(exercise) if exercise.params is None else (exercise, {}, _spec_digest(exercise))
                for exercise in exercises]
    version_ = grader_version()
    plan = Plan([e for e, _, _ in resolved], [], [])
    rule = rule or NameRule()
    for base, base_expected, base_digest in resolved:
        packed = pack(base, base_expected) if base.params is None else b""
        exercise, expected, digest = base, base_expected, base_digest
        tests = [{"name": t.name, "points": t.points, "hidden": t.hidden, "big": t.big} for t in exercise.tests]
        plan.exercise_rows.append(ExerciseRow(exercise.id, exercise.title, str(exercise.kind), digest,
                                              exercise.max_score, tests, pinned_limits(exercise)))
        for student in folder.students:
            if base.params is not None:  # the student's own variant, resolved once per variant for the class
                exercise, expected, digest, packed = _variant(plan, base, student)
            key = partial(GradingKey, exercise=digest, grader=version_, run_all=True)  # a batch runs every test
            found = folder.found[(student, exercise.id)]
            file = str(found.path.relative_to(folder.root)) if found.path else None
            if found.refused:  # before missing: a refused hand-in (a folder that is a link) has no path
                row_key = key("refused:" + sha256(found.refused.encode()))
                plan.settled[row_key] = uniform_report(exercise, found.label, Verdict.RUNTIME_ERROR, found.refused)
            elif found.path is None:
                row_key = key("missing")  # one grading shared by every student without the file
                plan.settled[row_key] = uniform_report(
                    exercise, found.label, Verdict.MISSING,
                    f"no {exercise.id}.{extension(exercise)} in the student's folder (nor a name that the "
                    f"batch's --match rule accepts)")
            else:
                context = Context(exercise, rule, helpers_of(folder, student, found.path))
                handin = _read_guarded(found.path, exercise, context)
                if not handin.ok:
                    # Unreadable, binary, huge, not Python text, an unsafe zip: grade() says so, running nothing.
                    row_key = key("unreadable:" + handin.digest())
                    if row_key not in plan.settled:
                        plan.settled[row_key] = grade(exercise, found.path, job_request(found.label),
                                                      handin=handin, expected=expected)
                else:
                    row_key = key(handin.digest())
                    if row_key not in plan.jobs:
                        plan.jobs[row_key] = Job(row_key, packed, found.label, handin, private_paths)
            plan.rows.append(SubmissionRow(student, exercise.id, file, row_key))
    return plan


def _spec_digest(exercise: Exercise) -> str:
    return sha256(b"params:" + exercise.path.read_bytes())


def _variant(plan: Plan, base: Exercise, student: str) -> tuple[Exercise, dict[str, object], str, bytes]:
    """The student's variant of `base`, resolved (its expected answers from its reference) once per variant;
    its digest names the variant too: two variants with the same answers are still two gradings."""
    variant = variant_of(base, student)
    plan.variants[(student, base.id)] = variant.id
    known = plan.candidates.setdefault(base.id, {})
    if variant.id not in known:
        exercise, expected, digest = resolve(variant.exercise)
        known[variant.id] = Candidate(exercise, expected)
        plan.resolved[(base.id, variant.id)] = (exercise, expected, sha256(f"{digest}:{variant.id}".encode()),
                                            pack(exercise, expected))
    known[variant.id].students.append(student)
    return plan.resolved[(base.id, variant.id)]


def _read_guarded(path: Path, exercise: Exercise, context: Context) -> Handin:
    """The hand-in as read for grading; a reader's failure (a bug, a file built to break it) is this
    student's verdict, never the end of the class's batch."""
    try:
        return read_submission(path, exercise, context)
    except Exception as error:  # noqa: BLE001 - one student's file must not stop everyone's grading
        why = f"the hand-in could not be read: {type(error).__name__}"
        return Handin(source="", refused=why, refused_verdict=Verdict.RUNTIME_ERROR)


def pinned_limits(exercise: Exercise) -> dict[str, list[object]]:
    """test -> [CPU seconds, where the limit came from]: what the batch grades this exercise under."""
    return {t.name: [t.limits.cpu, t.limits.cpu_origin] for t in exercise.tests}


def helpers_of(folder: ClassFolder, student: str, entry: Path) -> tuple[Path, ...]:
    """The student's .py files that answer no exercise (helpers.py): importable from every answer."""
    if entry.is_dir() or entry.suffix != ".py":
        return ()
    prefix = f"{student}/"
    return tuple(folder.root / name for name in folder.stray if name.startswith(prefix) and name.endswith(".py")
                 and "/" not in name[len(prefix):])
