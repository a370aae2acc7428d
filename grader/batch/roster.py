"""Who the students are in the LMS: `--roster roster.csv` maps each folder (or file-name prefix) the batch
finds to a student's name and LMS ids, so that a gradebook import finds them."""

from __future__ import annotations

import csv
from dataclasses import asdict
from pathlib import Path

from grader.errors import UsageError
from grader.text import escape_controls
from grader.records import record

COLUMNS = ("folder", "name", "id", "sis_id", "login", "email", "section", "participant")
# What a platform's download says of a student (grader.batch.layouts), and the roster column it matches.
MATCHED_BY = ("id", "sis_id", "email", "login", "participant")


@record
class Person:
    """One roster line; every field but the folder may be empty."""

    folder: str
    name: str = ""
    id: str = ""  # the LMS's own user id (Canvas "ID", Moodle user id)
    sis_id: str = ""  # the institution's id (Canvas "SIS User ID", Moodle "ID number", Gradescope SID)
    login: str = ""  # Canvas "SIS Login ID", Moodle username, GitHub login
    email: str = ""
    section: str = ""
    # The id one assignment gives the student: Moodle's participant id (Participant_<id> when blind), Canvas's
    # anonymous id (anon_<id>) when grading is anonymous.
    participant: str = ""
    line: int = 0

    def fields(self) -> dict[str, str]:
        return {key: value for key, value in asdict(self).items() if key != "line"}


@record
class Roster:
    path: Path
    people: list[Person]

    def match(self, students: list[str], ids: dict[str, dict[str, str]]) -> Matching:
        """Each student found to a roster line: by folder name, else by an id the platform gave."""
        by_folder = {p.folder: p for p in self.people if p.folder}
        by_id = {(key, getattr(p, key)): p for p in self.people for key in MATCHED_BY if getattr(p, key)}
        matched: dict[str, Person] = {}
        unknown: list[str] = []
        for student in students:
            person = by_folder.get(student) or next(
                (by_id[(key, value)] for key, value in ids.get(student, {}).items() if (key, value) in by_id), None)
            if person is None or person in matched.values():
                unknown.append(student)
            else:
                matched[student] = person
        taken = set(matched.values())
        return Matching(matched, unknown, [p for p in self.people if p not in taken])


@record
class Matching:
    matched: dict[str, Person]  # student (as the batch names them) -> roster line
    unknown: list[str]  # handed in, but on no roster line
    unmatched: list[Person]  # on the roster, but no hand-in found


def load_roster(path: Path) -> Roster:
    """A CSV with a header row: `folder` and any of the other COLUMNS. A mistake is a usage error that
    names the line."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a spreadsheet's export may start with a BOM
    except FileNotFoundError:
        raise UsageError(f"--roster {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--roster {path}: cannot read it as UTF-8 text: {error}") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows or not any(cell.strip() for cell in rows[0]):
        raise UsageError(f"{path}:1: the roster has no header row; it starts with {','.join(COLUMNS)}")
    header = [cell.strip().lower() for cell in rows[0]]
    unknown = [column for column in header if column not in COLUMNS]
    if unknown:
        raise UsageError(f"{path}:1: unknown column {escape_controls(', '.join(unknown))}; the columns are "
                         f"{', '.join(COLUMNS)}")
    if "folder" not in header:
        raise UsageError(f"{path}:1: the roster has no `folder` column (the student's folder or file-name "
                         f"prefix as the download names it)")
    if len(set(header)) != len(header):
        raise UsageError(f"{path}:1: a column appears twice")
    people: list[Person] = []
    seen: dict[tuple[str, str], int] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise UsageError(f"{path}:{number}: {len(row)} fields where the header has {len(header)}")
        values = {column: cell.strip() for column, cell in zip(header, row, strict=True)}
        person = Person(**values, line=number)
        if not person.folder and not any(getattr(person, key) for key in MATCHED_BY):
            raise UsageError(f"{path}:{number}: no folder and no id: nothing to find this student by")
        for key in ("folder", *MATCHED_BY):
            value = getattr(person, key)
            if value and (key, value) in seen:
                raise UsageError(f"{path}:{number}: {key} {escape_controls(value)!r} is already on line "
                                 f"{seen[(key, value)]}")
            seen[(key, value)] = number
        people.append(person)
    return Roster(path, people)


def class_list(students: list[str], ids: dict[str, dict[str, str]], late: dict[str, list[str]],
               roster: Roster | None, assignments: dict[str, str], layout: str) -> dict[str, object]:
    """class.json: who is who, for the gradebooks an LMS imports. Without a roster, each student as the
    platform's download names them (with the ids it gives, such as Canvas's user id)."""
    people: list[dict[str, object]]
    unknown: list[dict[str, object]] = []
    if roster is None:
        people = [{"student": s, "status": "graded", **_from_download(s, s, ids).fields()} for s in students]
    else:
        matching = roster.match(students, ids)
        student_of = {person.line: student for student, person in matching.matched.items()}
        people = [{"student": student_of.get(p.line), "status": "graded" if p.line in student_of else "no hand-in",
                   **p.fields()} for p in roster.people]
        unknown = [{"student": s, "status": "not on the roster", **_from_download(s, "", ids).fields()}
                   for s in matching.unknown]
    return {"version": 1, "layout": layout, "assignments": assignments, "roster": people, "unknown": unknown,
            "late": {s: exercises for s, exercises in late.items() if exercises}}


def _from_download(student: str, name: str, ids: dict[str, dict[str, str]]) -> Person:
    given = ids.get(student, {})
    return Person(student, name, id=given.get("id", ""), sis_id=given.get("sis_id", ""),
                  login=given.get("login", ""), email=given.get("email", ""),
                  participant=given.get("participant", ""))
