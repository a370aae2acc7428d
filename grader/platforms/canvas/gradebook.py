"""Canvas's gradebook import ("Import" in Grades): Student, ID, SIS User ID, SIS Login ID, Section, then one
column per assignment. Canvas finds a student by one of the first three; a column it does not know becomes a
new assignment, so there is no total (Canvas computes its own) and no other column."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.outputs import Output
from grader.outputs.cells import csv_text
from grader.outputs.files import write_atomic
from grader.outputs.lms_gradebook import assignment_names, read_class, student_scores

if TYPE_CHECKING:
    from pathlib import Path

    from grader.gradebook import Gradebook

CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
# Canvas's own columns of an export, which an import ignores or reads as something else.
CANVAS_RESERVED = {"student", "id", "sis user id", "sis login id", "section", "integration id", "root account",
                   "current score", "final score", "current grade", "final grade", "current points",
                   "final points", "unposted current score", "unposted final score", "unposted current grade",
                   "unposted final grade", "points possible", "notes", "override score", "override grade"}


class CanvasGradebook(Output):
    FILE = "gradebook-canvas.csv"

    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        known = read_class(folder)
        rows = [[*CANVAS_IDENTITY, *assignment_names(book, known["assignments"], CANVAS_RESERVED)]]
        for person in known["roster"]:
            rows.append([person["name"] or person["folder"], person["id"], person["sis_id"],
                         person["login"], person["section"], *student_scores(book, person["student"])])
        return [write_atomic(folder / self.FILE, csv_text(rows))]
