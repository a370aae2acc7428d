"""The class's results as the outputs and the summary read them: rebuilt from the database alone."""

from __future__ import annotations

import hashlib
import re
from dataclasses import field, replace
from pathlib import Path, PurePosixPath

from grader.batch.store import ExerciseRow, Store
from grader.model import Exercise, Report, StaffDetail, Verdict
from grader.records import record

BINS = 10


@record
class Cell:
    """One student's result for one exercise."""

    student: str
    exercise: str
    file: str | None  # relative to the submissions folder; None when missing
    submission_hash: str
    report: Report
    cpu_seconds: float
    wall_seconds: float
    run_id: int
    verdict: Verdict  # the report's, worked out once: outputs ask for it again and again
    score: float


@record
class Gradebook:
    grader_version: str
    exercises: list[ExerciseRow]
    students: list[str]
    cells: dict[tuple[str, str], Cell]
    # Where the graded files are, for outputs that read them (similarity): set by the batch that wrote it.
    submissions: Path | None = None
    specs: tuple[Exercise, ...] = ()
    # Hidden tests' expected values, outputs and tracebacks, by (student, exercise): staff pages only.
    staff: dict[tuple[str, str], list[StaffDetail]] = field(default_factory=dict)
    # params: (student, exercise) -> the classmate whose variant the student's failing hand-in solves.
    solves: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def load(cls, store: Store) -> Gradebook:
        gradings = store.gradings()
        marks = store.variants()
        cells: dict[tuple[str, str], Cell] = {}
        students: list[str] = []
        version = "unknown"
        for row in store.submissions():
            if not students or students[-1] != row.student:
                students.append(row.student)
            stored = gradings.get(row.key)
            if stored is None:
                continue  # not graded yet (an interrupted run): absent, never guessed
            version = row.key.grader
            label = f"{row.student}/{PurePosixPath(row.file).name}" if row.file else f"{row.student}/-"
            report = replace(stored.report, submission=label,
                             variant=marks.get((row.student, row.exercise), ("", ""))[0])
            cells[(row.student, row.exercise)] = Cell(row.student, row.exercise, row.file, row.key.submission,
                                                      report, stored.cpu_seconds, stored.wall_seconds, stored.run_id,
                                                      stored.verdict, report.score)
        details = store.every_staff_detail()
        staff = {(row.student, row.exercise): details[row.key] for row in store.submissions() if row.key in details}
        solves = {key: solver for key, (_, solver) in marks.items() if solver and key in cells}
        return cls(version, store.exercises(), students, cells, staff=staff, solves=solves)

    @property
    def max_total(self) -> float:
        return sum(e.max_score for e in self.exercises)

    def row(self, student: str) -> list[Cell | None]:
        return [self.cells.get((student, e.id)) for e in self.exercises]

    def total(self, student: str) -> float:
        return sum(cell.score for cell in self.row(student) if cell is not None)

    def complete(self) -> bool:
        return len(self.cells) == len(self.students) * len(self.exercises)


def file_names(students: list[str]) -> dict[str, str]:
    """A safe file name for each student's own output, each one distinct from every other (also on a file
    system that ignores case): a name we had to change gets a digest of it, and one that still meets a name
    already given (a student named `Jos_-5b7ec28b` beside a `Josû`) a number."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for student in sorted(students, key=lambda s: (re.sub(r"[^A-Za-z0-9._-]", "_", s) != s, s)):  # kept first
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", student).lstrip(".")[:100] or "_"
        if safe != student:
            safe += "-" + hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        name, number = safe, 1
        while name.lower() in taken:
            number += 1
            name = f"{safe}-{number}"
        taken.add(name.lower())
        names[student] = name
    return names


@record
class Bin:
    label: str
    count: int


@record
class PassRate:
    exercise: str
    test: str
    passed: int
    handed_in: int

    @property
    def rate(self) -> float:
        return self.passed / self.handed_in if self.handed_in else 0.0


def histogram(book: Gradebook) -> list[Bin]:
    """Students by total score, in tenths of the maximum (the last bin holds full marks too)."""
    counts = [0] * BINS
    for student in book.students:
        share = book.total(student) / book.max_total if book.max_total else 0.0
        counts[min(int(share * BINS), BINS - 1)] += 1
    width = 100 // BINS
    return [Bin(f"{i * width}–{(i + 1) * width}%", count) for i, count in enumerate(counts)]


def pass_rates(book: Gradebook) -> list[PassRate]:
    """Per test, among the students who handed the exercise in."""
    rates = []
    for exercise in book.exercises:
        cells = [c for s in book.students if (c := book.cells.get((s, exercise.id))) and c.file is not None]
        for position, test in enumerate(exercise.tests):
            passed = sum(1 for c in cells if position < len(c.report.outcomes)
                         and c.report.outcomes[position].verdict == Verdict.PASSED)
            rates.append(PassRate(exercise.id, str(test["name"]), passed, len(cells)))
    return rates
