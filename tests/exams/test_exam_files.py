"""An exam file's mistakes are reported as a spec's are: file:line:col, the key, and what to write instead.
Each case is one message; a good file loads; the book reads the folder again when a file changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.server.exams_spec import ExamBook, load_exam, read_exams

GOOD = """\
title: Midterm
exercises: [add, shout]
opens: 2027-01-15T09:00:00Z
closes: 2027-01-15T12:00:00Z
duration: 60
time_factor: 1
feedback: none
results_at: 2027-01-16T09:00:00Z
addresses: [10.9.0.0/16, "2001:db8::/32"]
students:
  alice: {time_factor: 1.5}
  bob: {opens: 2027-01-16T09:00:00Z, closes: 2027-01-16T12:00:00Z, duration: 45}
"""
KNOWN = ["add", "guess", "shout"]


def test_a_good_exam_file_loads_with_every_key(tmp_path: Path) -> None:
    path = tmp_path / "midterm.yaml"
    path.write_text(GOOD)
    exam, problems = load_exam(path, KNOWN)
    assert problems == [] and exam is not None
    assert exam.exercises == ("add", "shout") and exam.duration == 3600 and exam.feedback == "none"
    assert exam.terms("alice").duration == 5400 and exam.terms("bob").duration == 2700
    assert [str(n) for n in exam.addresses] == ["10.9.0.0/16", "2001:db8::/32"]


BROKEN = [
    ("duraton: 60\n", 8, "unknown key 'duraton' in the exam (did you mean 'duration'?)"),
    ("exercises: [add, ad]\n", None, "no exercise 'ad' in the course's exercises folder (did you mean 'add'?)"),
    ("exercises: [add, add]\n", None, "the exercise 'add' is listed twice"),
    ("exercises: []\n", None, "at least one"),
    ("closes: 2027-01-15T08:00:00Z\n", None, "closes must come after opens"),
    ("opens: next tuesday\n", None, "opens must be a date and time such as 2026-12-10T09:00:00Z, not 'next tuesday'"),
    ("duration: -5\n", None, "duration must be a number of minutes, more than 0"),
    ("duration: 1e400\n", None, "duration must be a number of minutes"),
    ("duration: true\n", None, "duration must be a number of minutes"),
    ("time_factor: 0\n", None, "time_factor must be a number of a multiple of the duration"),
    ("feedback: hidden\n", None, "feedback is one of visible, none, not 'hidden'"),
    ("addresses: [10.9.0.1/16]\n", None, "(did you mean 10.9.0.0/16?)"),
    ("addresses: [the lab]\n", None, "is not a network such as 10.1.0.0/16"),
    ("addresses: [\"10.0.0.0/8\\u0000\"]\n", None, "is not a network"),
    ("students: [alice]\n", None, "students must be a mapping of students to their own terms"),
    ("students:\n  alice: {time_factr: 2}\n", 9, "unknown key 'time_factr' in students.alice (did you mean 'time_factor'?)"),
    ("students:\n  alice: {time_factor: 99}\n", 9, "students.alice.time_factor must be a number"),
    ("students:\n  \"al\\u0007ice\": {time_factor: 2}\n", 9, "printable text"),
]


@pytest.mark.parametrize("change,line,message", BROKEN, ids=[m[:40] for _, _, m in BROKEN])
def test_a_mistake_names_the_file_the_line_and_the_key(tmp_path: Path, change: str, line: int | None,
                                                       message: str) -> None:
    key = change.split(":", 1)[0]
    kept = [row for row in GOOD.splitlines(keepends=True)[:7] if not row.startswith(f"{key}:")]
    text = "".join(kept) + change
    path = tmp_path / "midterm.yaml"
    path.write_text(text)
    exam, problems = load_exam(path, KNOWN)
    assert exam is None and problems, text
    shown = [str(p) for p in problems]
    assert any(message in p for p in shown), shown
    assert all(p.startswith(f"{path}:") for p in shown)
    if line is not None:
        assert any(p.line == line for p in problems), shown


@pytest.mark.parametrize("name,text,message", [
    ("Mid Term.yaml", GOOD, "named after its id"),
    ("empty.yaml", "", "the file is empty"),
    ("syntax.yaml", "title: [unclosed\n", "invalid YAML"),
    ("latin.yaml", "title: caf\xe9\n", "not UTF-8"),
    ("partial.yaml", "title: Quiz\n", "the exam has no 'exercises'"),
], ids=["a name that is no id", "empty", "not YAML", "not UTF-8", "keys missing"])
def test_a_file_that_is_no_exam_says_why(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(text.encode("latin-1") if "latin" in name else text.encode())
    exam, problems = load_exam(path, KNOWN)
    assert exam is None and message in str(problems[0]) and str(problems[0]).startswith(f"{path}:")


def test_an_exercise_belongs_to_one_exam_and_the_book_reads_changes(tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    exercises.mkdir()
    for known in KNOWN:
        (exercises / f"{known}.yaml").write_text("title: x\n")
    folder = tmp_path / "exams"
    folder.mkdir()
    (folder / "a.yaml").write_text(GOOD)
    (folder / "b.yaml").write_text(GOOD.replace("[add, shout]", "[guess, add]"))
    exams, problems = read_exams(folder, exercises)
    assert list(exams) == ["a"] and "the exercise 'add' is in the exam 'a' too" in str(problems[0])
    book = ExamBook(folder, exercises)
    assert book.of_exercise("shout") is not None and book.of_exercise("guess") is None
    (folder / "b.yaml").write_text(GOOD.replace("[add, shout]", "[guess]"))
    os.utime(folder / "b.yaml", ns=(1, 1))  # a change the clock's resolution could hide
    assert book.of_exercise("guess") is not None and book.problems() == []
    (folder / "b.yaml").write_text("exercises: [guess]\nduraton: 5\n")  # a typo while the exam runs
    assert book.of_exercise("guess") is not None  # its rules never lapse: the last good version is given
    assert any("last read" in str(p) for p in book.problems()) and any("duraton" in str(p) for p in book.problems())


def test_grader_validate_reports_a_broken_exam_by_file_and_line(tmp_path: Path) -> None:
    from tests.batch.classroom import write_course
    from tests.conftest import run_cli

    exercises = write_course(tmp_path)
    (tmp_path / "exams").mkdir()
    (tmp_path / "exams" / "final.yaml").write_text(GOOD.replace("feedback: none", "feedbak: none"))
    done = run_cli("validate", "--exercises", exercises)
    assert done.returncode == 3, done.stderr
    assert f"{tmp_path / 'exams' / 'final.yaml'}:7:1: unknown key 'feedbak'" in done.stderr + done.stdout
