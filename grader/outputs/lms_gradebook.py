"""Gradebooks an LMS imports (`grader batch --gradebook canvas|moodle|plain`): the class's scores joined to
the roster that class.json holds, one column per assignment as the instructor names it.

- Canvas ("Import" in Grades): Student, ID, SIS User ID, SIS Login ID, Section, then one column per
  assignment. Canvas finds a student by one of the first three; a column it does not know becomes a new
  assignment, so there is no total (Canvas computes its own) and no other column.
- Moodle ("Import > CSV file"): a header row; the teacher picks the column that identifies users (email,
  ID number, username or user id) and maps each other column to a grade item.
- plain: the same join for a spreadsheet, every student (those on no roster line too), total and late.
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
CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
# Canvas's own columns of an export, which an import ignores or reads as something else.
CANVAS_RESERVED = {"student", "id", "sis user id", "sis login id", "section", "integration id", "root account",
                   "current score", "final score", "current grade", "final grade", "current points",
                   "final points", "unposted current score", "unposted final score", "unposted current grade",
                   "unposted final grade", "points possible", "notes", "override score", "override grade"}
MOODLE_IDENTITY = (("Email address", "email"), ("ID number", "sis_id"), ("Username", "login"),
                   ("User ID", "id"))


def read_class(folder: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((folder / CLASS_FILE).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _scores(book: Gradebook, student: str | None) -> list[str]:
    """One cell per exercise; blank for a student the batch has no hand-in of (it gave no grade)."""
    if student is None or student not in book.students:
        return [""] * len(book.exercises)
    return [points(cell.score) if cell else "" for cell in book.row(student)]


def _assignments(book: Gradebook, listed: dict[str, str], reserved: set[str]) -> list[str]:
    names = [listed.get(e.id) or e.title or e.id for e in book.exercises]
    clash = [n for n in names if n.strip().lower() in reserved]
    twice = {n for n in names if names.count(n) > 1}
    if clash or twice:
        raise UsageError(f"assignment names {', '.join(sorted(set(clash) | twice))} are "
                         f"{'one of the gradebook columns' if clash else 'given twice'}: name each exercise "
                         f"with --assignment ID=NAME")
    return names


class CanvasGradebook(Output):
    FILE = "gradebook-canvas.csv"

    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        known = read_class(folder)
        rows = [[*CANVAS_IDENTITY, *_assignments(book, known["assignments"], CANVAS_RESERVED)]]
        for person in known["roster"]:
            rows.append([person["name"] or person["folder"], person["id"], person["sis_id"],
                         person["login"], person["section"], *_scores(book, person["student"])])
        return [write_atomic(folder / self.FILE, csv_text(rows))]


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
        names = _assignments(book, known["assignments"], {"full name", *(t.lower() for t, _ in MOODLE_IDENTITY)})
        rows = [["Full name", *(title for title, _ in identity), *names]]
        for person in people:
            rows.append([person["name"] or person["folder"], *(person[key] for _, key in identity),
                         *_scores(book, person["student"])])
        return [write_atomic(folder / self.FILE, csv_text(rows))]


class PlainGradebook(Output):
    FILE = "gradebook-plain.csv"
    PERSON = ("folder", "name", "id", "sis_id", "login", "email", "section", "participant")

    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        known = read_class(folder)
        names = _assignments(book, known["assignments"], {*self.PERSON, "total", "late", "status"})
        rows = [[*self.PERSON, *names, "total", "late", "status"]]
        for person in known["roster"] + known["unknown"]:
            student = person["student"]
            total = points(book.total(student)) if student in book.students else ""
            rows.append([person[key] for key in self.PERSON] + _scores(book, student)
                        + [total, " ".join(known["late"].get(student or "", [])), person["status"]])
        return [write_atomic(folder / self.FILE, csv_text(rows))]
