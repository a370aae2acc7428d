"""gradescope/<student>/results.json, in Gradescope's documented autograder schema (score, tests with
name, score, max_score, status, visibility, output). Hidden tests become `after_published`: the student
sees them once grades are published, and their output never holds the test's input or answer."""

from __future__ import annotations

import json
from pathlib import Path

from grader.batch.gradebook import Gradebook, file_name_for
from grader.model import Outcome, Verdict
from grader.outputs import Output
from grader.outputs.files import swapped_folder, write_atomic
from grader.outputs.text import plain_body, points

FOLDER = "gradescope"


def results(book: Gradebook, student: str) -> dict[str, object]:
    tests: list[dict[str, object]] = []
    lines = []
    wall = 0.0
    for number, (exercise, cell) in enumerate(zip(book.exercises, book.row(student), strict=True), start=1):
        if cell is None:
            continue
        wall += cell.wall_seconds
        lines.append(f"{exercise.id}: {points(cell.score)}/{points(cell.report.max_score)} ({cell.verdict})")
        for position, outcome in enumerate(cell.report.outcomes, start=1):
            tests.append({
                "name": f"{exercise.id}: {outcome.test}",
                "number": f"{number}.{position}",
                "score": outcome.points,
                "max_score": outcome.max_points,
                "status": "passed" if outcome.verdict == Verdict.PASSED else "failed",
                "visibility": "after_published" if outcome.hidden else "visible",
                "output": _output(outcome),
                "tags": [exercise.id],
            })
    total = book.total(student)
    return {
        "score": total,
        "execution_time": round(wall),
        "output": f"Score {points(total)}/{points(book.max_total)}\n" + "\n".join(lines),
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"grader_version": book.grader_version, "student": student},
    }


def _output(outcome: Outcome) -> str:
    head = str(outcome.verdict) + (f": {outcome.feedback}" if outcome.feedback else "")
    body = plain_body(outcome)
    return f"{head}\n{body}" if body else head


class GradescopeResults(Output):
    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        with swapped_folder(folder / FOLDER) as building:
            for student in book.students:
                own = building / file_name_for(student)
                own.mkdir()
                # Compact: json encodes in C only without indent, and 200 students add up.
                write_atomic(own / "results.json", json.dumps(results(book, student), ensure_ascii=True,
                                                              separators=(",", ":")))
        return [folder / FOLDER]
