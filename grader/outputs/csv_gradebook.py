"""gradebook.csv: one row per student, one column per exercise id (points scored), then the total."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from grader.batch.gradebook import Gradebook
from grader.outputs import Output
from grader.outputs.files import write_atomic
from grader.outputs.text import points

FILE = "gradebook.csv"
# A spreadsheet runs a cell that starts with one of these as a formula: a student's folder name must not.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


class CsvGradebook(Output):
    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        text = io.StringIO(newline="")
        writer = csv.writer(text)
        writer.writerow(["student", *(e.id for e in book.exercises), "total"])
        for student in book.students:
            scores = [points(cell.score) if cell else "" for cell in book.row(student)]
            writer.writerow([inert(student), *scores, points(book.total(student))])
        return [write_atomic(folder / FILE, text.getvalue())]


def inert(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_START) else text
