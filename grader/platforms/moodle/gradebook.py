"""Moodle's gradebook import ("Import > CSV file"): a header row; the teacher picks the column that identifies
users (email, ID number, username or user id) and maps each other column to a grade item."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.errors import UsageError
from grader.outputs import Output
from grader.outputs.cells import csv_text
from grader.outputs.files import write_atomic
from grader.outputs.lms_gradebook import assignment_names, read_class, student_scores

if TYPE_CHECKING:
    from pathlib import Path

    from grader.gradebook import Gradebook

MOODLE_IDENTITY = (("Email address", "email"), ("ID number", "sis_id"), ("Username", "login"),
                   ("User ID", "id"))


class MoodleGradebook(Output):
    FILE = "gradebook-moodle.csv"

    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        known = read_class(folder)
        people = known["roster"]
        identity = [(title, key) for title, key in MOODLE_IDENTITY if any(p[key] for p in people)]
        if people and not identity:
            raise UsageError("a Moodle import identifies users by email, ID number, username or user id, and a "
                             "download gives only participant ids: give a roster with an email, sis_id, login "
                             "or id column (and `participant` to match the download's)")
        names = assignment_names(book, known["assignments"], {"full name", *(t.lower() for t, _ in MOODLE_IDENTITY)})
        rows = [["Full name", *(title for title, _ in identity), *names]]
        for person in people:
            rows.append([person["name"] or person["folder"], *(person[key] for _, key in identity),
                         *student_scores(book, person["student"])])
        return [write_atomic(folder / self.FILE, csv_text(rows))]
