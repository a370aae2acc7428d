"""Gradebooks an LMS imports, from a real batch over a Canvas-shaped download with a roster, checked
against the rules each LMS documents for its import file."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from tests.batch.classroom import write_course
from tests.conftest import Completed, run_cli

ROSTER = """\
folder,name,id,sis_id,login,email,section
smithbob,"Smith, Bob",340934,S001,bsmith,Bob.Smith@example.edu,Section 1
,"Jones, Ann",340935,S002,ajones,ann.jones@example.edu,Section 2
,"Lee, Amy",340936,S003,alee,amy.lee@example.edu,Section 1
"""
ADD = {"right": "def add(a, b):\n    return a + b\n", "wrong": "def add(a, b):\n    return 0\n"}


def read(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as stream:
        return list(csv.reader(stream))


@pytest.fixture(scope="module")
def lms_batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Completed]:
    root = tmp_path_factory.mktemp("lms")
    download = root / "download"
    download.mkdir()
    # Canvas: <login>[_LATE]_<user id>_<submission id>_<file>; Amy (on the roster) handed nothing in,
    # zoezed (not on it) did.
    (download / "smithbob_340934_1001_add.py").write_text(ADD["right"])
    (download / "smithbob_340934_1002_shout.py").write_text("print(input().upper())\n")
    (download / "jonesann_LATE_340935_1003_add.py").write_text(ADD["wrong"])
    (download / "zoezed_340999_1004_add.py").write_text(ADD["right"])
    (root / "roster.csv").write_text(ROSTER)
    result = run_cli("batch", download, "--exercises", write_course(root), "--out", root / "out", "--workers", 1,
                     "--only", "add", "--only", "shout", "--roster", root / "roster.csv",
                     "--gradebook", "canvas", "--gradebook", "moodle", "--gradebook", "plain",
                     "--assignment", "add=HW1: Add (5501)", timeout=300)
    assert result.returncode == 0, result.stderr
    return root / "out", result


def test_the_canvas_import_file_has_the_columns_canvas_documents(lms_batch: tuple[Path, Completed]) -> None:
    # Canvas's grade import (OSU CarmenCanvas guide "Import a CSV file to Carmen Grades",
    # teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades):
    # - Student Name OR Student ID OR SIS User ID identifies the student (one of them is required),
    # - then SIS Login ID, then Section, then one column per assignment;
    # - "New assignment columns in the Gradebook generate new assignments": so no total and no column other
    #   than the assignments graded.
    rows = read(lms_batch[0] / "gradebook-canvas.csv")
    header = rows[0]
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert header[5:] == ["HW1: Add (5501)", "Shout"]  # --assignment names one; the title names the other
    assert not any(name.lower() in ("total", "late", "student", "folder") for name in header[5:])
    body = {row[1]: row for row in rows[1:]}
    assert all(row[1] or row[2] for row in rows[1:])  # each student found by an id
    assert body["340934"] == ["Smith, Bob", "340934", "S001", "bsmith", "Section 1", "4", "4"]
    assert body["340935"][5:] == ["1", "0"]  # no shout.py: missing, 0 as in every gradebook; late: Canvas knows
    assert body["340936"][5:] == ["", ""]  # on the roster, no hand-in: no grade given
    assert "340999" not in body  # not on the roster: Canvas could not match them


def test_the_moodle_import_file_identifies_users_by_a_column_and_has_one_per_grade_item(
        lms_batch: tuple[Path, Completed]) -> None:
    # Moodle's "Grade import" (docs.moodle.org/en/Grade_import): a CSV with a header row; on import the
    # teacher maps one column to identify users ("Email address" to useremail, "ID number" to
    # useridnumber, username, userid) and each other column to a grade item; emails are compared case
    # sensitively, so they are written exactly as the roster gives them.
    rows = read(lms_batch[0] / "gradebook-moodle.csv")
    header = rows[0]
    identity = {"Email address", "ID number", "Username", "User ID"}
    assert header[0] == "Full name" and set(header[1:5]) == identity
    assert header[5:] == ["HW1: Add (5501)", "Shout"]
    emails = [row[header.index("Email address")] for row in rows[1:]]
    assert "Bob.Smith@example.edu" in emails and all(emails)
    for row in rows[1:]:
        assert all(cell == "" or float(cell) >= 0 for cell in row[5:])  # grades are numbers (or none)


def test_unknown_and_unmatched_students_are_listed_and_late_is_kept(lms_batch: tuple[Path, Completed]) -> None:
    out, result = lms_batch
    assert "on no roster line" in result.stderr and "zoezed" in result.stderr
    assert "no hand-in found" in result.stderr and "Lee, Amy" in result.stderr
    assert "handed in late" in result.stderr and "jonesann" in result.stderr
    plain = {row["status"]: row for row in csv.DictReader((out / "gradebook-plain.csv").open(newline=""))}
    assert plain["not on the roster"]["folder"] == "zoezed" and plain["not on the roster"]["total"] == "4"
    assert plain["no hand-in"]["name"] == "Lee, Amy"
    known = json.loads((out / "class.json").read_text())
    assert known["late"] == {"jonesann": ["add"]} and known["layout"] == "canvas"
    # The default gradebook is as it was: folder names, exercise ids, total.
    assert read(out / "gradebook.csv")[0] == ["student", "add", "shout", "total"]


@pytest.mark.parametrize(("roster", "message"), [
    ("name,id\nAda,1\n", r"roster.csv:1: the roster has no `folder` column"),
    ("folder,nmae\nada,Ada\n", r"roster.csv:1: unknown column nmae"),
    ("folder,id\nada,1\nalan\n", r"roster.csv:3: 1 fields where the header has 2"),
    ("folder,id\nada,1\nalan,1\n", r"roster.csv:3: id '1' is already on line 2"),
    ("folder,name\nada,Ada\n,Alan\n", r"roster.csv:3: no folder and no id"),
])
def test_a_malformed_roster_is_a_usage_error_naming_the_line(tmp_path: Path, roster: str, message: str) -> None:
    (tmp_path / "roster.csv").write_text(roster)
    (tmp_path / "class" / "ada").mkdir(parents=True)
    result = run_cli("batch", tmp_path / "class", "--roster", tmp_path / "roster.csv", "--out", tmp_path / "out")
    assert result.returncode == 2
    assert "usage: grader batch" in result.stderr
    assert re.search(message, result.stderr), result.stderr
