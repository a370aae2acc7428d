"""`grader batch` takes every hand-in form from a student's folder, keeps hidden tests' details for staff
only, and `grader batch show` prints them."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import nbformat
import pytest

from tests.conftest import Completed, run_cli
from tests.handins.conftest import ADD, Course, write
from tests.handins.test_folders_and_zips import HELPER, USES_HELPER

WRONG_ON_HIDDEN = "def add(a, b):\n    if a == 2:\n        return [a, b]\n    return a + b\n"


def batch(*args: object) -> Completed:
    return run_cli("batch", *args, timeout=300)


@pytest.fixture(scope="module")
def graded(course: Course, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("class")
    write(root / "class" / "ada" / "add" / "add.py", USES_HELPER)  # a folder named for the exercise
    write(root / "class" / "ada" / "add" / "helpers.py", HELPER)
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_markdown_cell("# add"), nbformat.v4.new_code_cell("%load_ext autoreload\n" + ADD)]
    (root / "class" / "bob").mkdir(parents=True)
    nbformat.write(book, root / "class" / "bob" / "add.ipynb")
    with zipfile.ZipFile(root / "class" / "cy.zip", "w") as archive:
        archive.writestr("cy/add.py", USES_HELPER)
        archive.writestr("cy/helpers.py", HELPER)
    (root / "class" / "cy").mkdir()
    (root / "class" / "cy.zip").rename(root / "class" / "cy" / "add.zip")
    write(root / "class" / "dee" / "add.py", USES_HELPER)  # a student's folder of files: helpers beside
    write(root / "class" / "dee" / "helpers.py", HELPER)
    write(root / "class" / "eve" / "add.py", WRONG_ON_HIDDEN)
    out = root / "out"
    result = batch(root / "class", "--exercises", course.exercises, "--out", out, "--workers", 2)
    assert result.returncode == 0, result.stderr
    return out


def test_every_form_in_a_class_is_graded(graded: Path) -> None:
    grades = json.loads((graded / "grades.json").read_text())
    totals = {s["student"]: s["total"] for s in grades["students"]}
    assert totals == {"ada": 2, "bob": 2, "cy": 2, "dee": 2, "eve": 1}
    files = {s["student"]: s["exercises"]["add"]["file"] for s in grades["students"]}
    assert files == {"ada": "ada/add", "bob": "bob/add.ipynb", "cy": "cy/add.zip", "dee": "dee/add.py",
                     "eve": "eve/add.py"}


def test_batch_show_prints_a_hidden_failures_expected_value_beside_its_output(graded: Path) -> None:
    shown = run_cli("batch", "show", "eve", "add", "--out", graded)
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "eve · add (eve/add.py): 1/2 wrong_answer" in text
    assert "2. add(2, 5) (hidden)" in text
    rows = [line.strip("│ ").split() for line in shown.stdout.splitlines()]
    heading = rows.index(["expected", "output"], next(i for i, r in enumerate(rows) if "(hidden)" in r))
    assert rows[heading + 1] == ["7", "[2,", "5]"]  # side by side: expected value, then what it returned
    assert "(the default)" in text  # which CPU limit applied, and where it came from


def test_batch_show_of_an_unknown_student_is_a_usage_error(graded: Path) -> None:
    shown = run_cli("batch", "show", "evee", "--out", graded)
    assert shown.returncode == 2
    assert shown.stderr.startswith("usage: grader batch show")
    assert "no student 'evee'" in shown.stderr and "did you mean 'eve'?" in shown.stderr


def test_hidden_details_reach_staff_pages_and_nothing_a_student_receives(graded: Path) -> None:
    staff = (graded / "html" / "staff" / "eve.html").read_text()
    assert "[2, 5]" in staff and "add(2, 5)" in staff
    assert "staff/eve.html" in (graded / "html" / "index.html").read_text()
    for student_facing in (graded / "html" / "students" / "eve.html", graded / "gradescope" / "eve" / "results.json",
                           graded / "grades.json"):
        assert "[2, 5]" not in student_facing.read_text(), student_facing


def test_the_notebooks_note_is_kept_with_its_result(graded: Path) -> None:
    page = (graded / "html" / "students" / "bob.html").read_text()
    assert "cells 2 hold IPython magics" in page
