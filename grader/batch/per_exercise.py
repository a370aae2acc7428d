"""One line per exercise, for a TA's first look: how many handed it in, how many passed every test, the mean
score, and the commonest way it failed (the terminal summary and the class page both show it)."""

from __future__ import annotations

import statistics
from collections import Counter

from grader.gradebook import Cell, Gradebook
from grader.model import Verdict
from grader.records import record


@record
class Failure:
    verdict: Verdict
    submissions: int  # how many handed-in submissions ended with this verdict
    test: str | None  # the test they most often got it on; None when it stopped the whole file


@record
class ExerciseSummary:
    id: str
    title: str
    max_score: float
    students: int
    handed_in: int
    passed: int  # handed in and passed every test
    mean: float | None  # mean score of those who handed it in; None when nobody did
    failure: Failure | None  # the commonest verdict other than passed; None when none failed

    @property
    def pass_rate(self) -> float:
        return self.passed / self.handed_in if self.handed_in else 0.0


def exercise_summaries(book: Gradebook) -> list[ExerciseSummary]:
    summaries = []
    for exercise in book.exercises:
        cells = [c for s in book.students if (c := book.cells.get((s, exercise.id))) and c.file is not None]
        summaries.append(ExerciseSummary(
            exercise.id, exercise.title, exercise.max_score, len(book.students), len(cells),
            sum(1 for c in cells if c.verdict == Verdict.PASSED),
            statistics.fmean(c.score for c in cells) if cells else None, commonest_failure(cells)))
    return summaries


def commonest_failure(cells: list[Cell]) -> Failure | None:
    failed = Counter(c.verdict for c in cells if c.verdict != Verdict.PASSED)
    if not failed:
        return None
    # Ties go to the worse verdict: it is the one a TA must look at first.
    verdict = min(failed, key=lambda v: (-failed[v], v.severity))
    on_test: Counter[tuple[int, str]] = Counter()
    whole_file = True
    for cell in cells:
        if cell.verdict != verdict:
            continue
        hits = [(i, o.test) for i, o in enumerate(cell.report.outcomes) if o.verdict == verdict]
        whole_file &= len(hits) == len(cell.report.outcomes)
        on_test.update(hits)
    test = None
    if on_test and not whole_file:
        test = min(on_test, key=lambda hit: (-on_test[hit], hit[0]))[1]
    return Failure(verdict, failed[verdict], test)
