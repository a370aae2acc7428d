"""gradebook.csv: one row per student, one column per exercise id (points scored), then the total."""

from __future__ import annotations

from pathlib import Path

from grader.gradebook import Gradebook
from grader.outputs import Output
from grader.outputs.cells import csv_text
from grader.outputs.files import write_atomic
from grader.text import points

FILE = "gradebook.csv"


class CsvGradebook(Output):
    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        rows: list[list[object]] = [["student", *(e.id for e in book.exercises), "total"]]
        for student in book.students:
            scores = [points(cell.score) if cell else "" for cell in book.row(student)]
            rows.append([student, *scores, points(book.total(student))])
        return [write_atomic(folder / FILE, csv_text(rows))]
