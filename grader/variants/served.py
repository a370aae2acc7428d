"""Variants on the course server: each student's variant resolved once (its expected answers from its
rendered reference), and the wrong-variant flag of a student's latest wrong answer, worked out when staff
open the student's page and kept for that submission (detect.py bounds its cost)."""

from __future__ import annotations

import threading
from pathlib import Path

from grader.grading import read_submission
from grader.model import Exercise, Report
from grader.variants import variant_of
from grader.variants.detect import Candidate, solved_variant, worth_trying
from grader.workers.job import pack, resolve, sha256

Resolved = tuple[Exercise, str, bytes, dict[str, object]]  # the exercise, its digest, packed, expected


class ServedVariants:
    def __init__(self) -> None:
        self._variants: dict[tuple[str, str], Resolved] = {}  # (exercise, variant id) -> resolved
        self._held: dict[tuple[str, str], str] = {}  # (exercise, student) -> variant id
        self._flags: dict[int, str] = {}  # submission number -> the classmate whose variant it solves
        self._lock = threading.Lock()

    def forget(self) -> None:
        with self._lock:
            self._variants.clear()
            self._held.clear()
            self._flags.clear()

    @staticmethod
    def unresolved(base: Exercise) -> Resolved:
        """An exercise with params, for what every variant shares (its tests' names, points, rubric)."""
        return base, sha256(b"params:" + base.path.read_bytes()), b"", {}

    def of(self, base: Exercise, student: str) -> Resolved:
        variant = variant_of(base, student)
        with self._lock:
            self._held[(base.id, student)] = variant.id
            key = (base.id, variant.id)
            if key not in self._variants:
                exercise, expected, digest = resolve(variant.exercise)
                self._variants[key] = (exercise, sha256(f"{digest}:{variant.id}".encode()),
                                       pack(exercise, expected), expected)
            return self._variants[key]

    def flag(self, base: Exercise, number: int, student: str, path: Path, report: Report | None,
             students: list[str]) -> str:
        """The classmate whose variant submission `number` solves while failing its own, or ""."""
        if report is None or not worth_trying(report.verdict):
            return ""
        with self._lock:
            if number in self._flags:
                return self._flags[number]
        candidates: dict[str, Candidate] = {}
        for other in students:
            exercise, _, _, expected = self.of(base, other)
            candidates.setdefault(exercise.variant, Candidate(exercise, expected)).students.append(other)
        own = self.of(base, student)[0]
        handin = read_submission(path, own)
        solves = solved_variant(handin, path, own.variant, list(candidates.values()), student) if handin.ok else ""
        with self._lock:
            self._flags[number] = solves
        return solves


def latest_graded(submissions: list[object], exercise: str) -> object | None:
    """The newest graded submission of the exercise (the list is oldest first, as the state gives it)."""
    graded = [s for s in submissions if getattr(s, "exercise") == exercise and getattr(s, "report") is not None]
    return graded[-1] if graded else None


def wrong_variant_flags(exercises: object, state: object, student: str) -> dict[str, str]:
    """exercise -> the classmate whose variant the student's latest graded hand-in solves (failing their own):
    for the staff's page of the student (grader.server.pages.staff_student)."""
    from grader.errors import GraderError

    flags: dict[str, str] = {}
    for exercise_id in exercises.ids():  # type: ignore[attr-defined]
        try:
            base = exercises.get(exercise_id)[0]  # type: ignore[attr-defined]
        except GraderError:
            continue
        if base.params is None:
            continue
        latest = latest_graded(state.list(student=student, exercise=exercise_id), exercise_id)  # type: ignore[attr-defined]
        if latest is None:
            continue
        solves = exercises.variants.flag(base, latest.id, student, state.path_of(latest),  # type: ignore[attr-defined]
                                         latest.report, state.students())  # type: ignore[attr-defined]
        if solves:
            flags[exercise_id] = solves
    return flags
