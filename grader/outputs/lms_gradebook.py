"""Gradebooks an LMS imports (`grader batch --gradebook canvas|moodle|plain`): the class's scores joined to
the roster that class.json holds, one column per assignment as the instructor names it. The join is here,
with `plain` (every student, those on no roster line too, total and late, for a spreadsheet); each LMS's
own columns are its platform's (grader/platforms/canvas/gradebook.py, grader/platforms/moodle/gradebook.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.gradebook import Gradebook
from grader.errors import UsageError
from grader.outputs import Output
from grader.outputs.cells import csv_text
from grader.outputs.files import write_atomic
from grader.text import points

CLASS_FILE = "class.json"


def read_class(folder: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((folder / CLASS_FILE).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def student_scores(book: Gradebook, student: str | None) -> list[str]:
    """One cell per exercise; blank for a student the batch has no hand-in of (it gave no grade)."""
    if student is None or student not in book.students:
        return [""] * len(book.exercises)
    return [points(cell.score) if cell else "" for cell in book.row(student)]


def assignment_names(book: Gradebook, listed: dict[str, str], reserved: set[str]) -> list[str]:
    names = [listed.get(e.id) or e.title or e.id for e in book.exercises]
    clash = [n for n in names if n.strip().lower() in reserved]
    twice = {n for n in names if names.count(n) > 1}
    if clash or twice:
        raise UsageError(f"assignment names {', '.join(sorted(set(clash) | twice))} are "
                         f"{'one of the gradebook columns' if clash else 'given twice'}: name each exercise "
                         f"with --assignment ID=NAME")
    return names


class PlainGradebook(Output):
    FILE = "gradebook-plain.csv"
    PERSON = ("folder", "name", "id", "sis_id", "login", "email", "section", "participant")

    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        known = read_class(folder)
        names = assignment_names(book, known["assignments"], {*self.PERSON, "total", "late", "status"})
        rows = [[*self.PERSON, *names, "total", "late", "status"]]
        for person in known["roster"] + known["unknown"]:
            student = person["student"]
            total = points(book.total(student)) if student in book.students else ""
            rows.append([person[key] for key in self.PERSON] + student_scores(book, student)
                        + [total, " ".join(known["late"].get(student or "", [])), person["status"]])
        return [write_atomic(folder / self.FILE, csv_text(rows))]
