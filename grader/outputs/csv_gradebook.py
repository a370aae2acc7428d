"""gradebook.csv: one row per student, one column per exercise id (points scored), then the total."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from grader.batch.gradebook import Gradebook
from grader.outputs import Output
from grader.outputs.files import write_atomic
from grader.text import points

FILE = "gradebook.csv"
# A spreadsheet runs a cell that starts with one of these as a formula: a student's folder name must not,
# at its start nor after a character a spreadsheet may split cells on (a ; in many locales, a tab, a |).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_FORMULA = re.compile(r"(?:^|(?<=[,;\t|\r\n]))(\s*)(?=[=+\-@\t\r])")


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
    """`text` with a ' before every part that a spreadsheet could read as a formula."""
    return _FORMULA.sub(r"\1'", text)
