"""What each reader sees of a hidden test (grader.readers, one rule): staff see its input (the call, the
stdin) beside its expected value and output on every staff surface of a batch (`grader batch show`, the
staff pages, the analytics); the student's page and report never show it. The hidden tests here are named
for what they test, not for their input, so only the rule can put the input where it is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.model import Outcome, Report, StaffDetail, Verdict
from grader.readers import Reader, report_seen, seen_test, seen_tests
from tests.conftest import run_cli

SECRET_CALL = "add(-7, 3)"
SECRET_STDIN = "quiet zebra"
COURSE = {
    "add": f"""\
title: Add
kind: function
entry: add
statement: Return `a + b`.
tests:
  - name: small
    call: add(1, 2)
    expect: 3
  - name: negatives
    call: {SECRET_CALL}
    expect: -4
    hidden: true
""",
    "shout": f"""\
title: Shout
kind: program
statement: Print the line you read, in capitals.
tests:
  - name: hello
    stdin: "hello\\n"
    expect: "HELLO\\n"
  - name: two words
    stdin: "{SECRET_STDIN}\\n"
    expect: "QUIET ZEBRA\\n"
    hidden: true
""",
}
CODE = {"add.py": "def add(a, b):\n    return a + b if a >= 0 else 0\n",
        "shout.py": "s = input()\nprint(s.upper() if s == 'hello' else s)\n"}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hidden-inputs")
    (root / "exercises").mkdir()
    for name, text in COURSE.items():
        (root / "exercises" / f"{name}.yaml").write_text(text)
    for student in ("ada", "bo"):
        (root / "class" / student).mkdir(parents=True)
        for name, code in CODE.items():
            (root / "class" / student / name).write_text(code)
    done = run_cli("batch", root / "class", "--exercises", root / "exercises", "--out", root / "out",
                   "--workers", 1, "--outputs", "html,json", "--layout", "folders")
    assert done.returncode == 0, done.stderr
    return root / "out"


def test_batch_show_gives_staff_each_failing_hidden_tests_input(graded: Path) -> None:
    shown = run_cli("batch", "show", "ada", "--out", graded, env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    assert f"input: {SECRET_CALL}" in shown.stdout and "-4" in shown.stdout  # the call beside expected
    assert f"input: {SECRET_STDIN}" in shown.stdout


def test_the_staff_page_shows_the_input_and_the_students_page_never(graded: Path) -> None:
    staff = (graded / "html" / "staff" / "ada.html").read_text()
    student = (graded / "html" / "students" / "ada.html").read_text()
    assert SECRET_CALL in staff and SECRET_STDIN in staff
    assert SECRET_CALL not in student and SECRET_STDIN not in student and "negatives" in student
    grades = (graded / "grades.json").read_text()  # what a student's platform may be handed
    assert SECRET_CALL not in grades and SECRET_STDIN not in grades


def test_the_analytics_give_staff_the_hidden_tests_input(graded: Path) -> None:
    done = run_cli("analytics", graded / "results.sqlite", "--format", "json")
    assert done.returncode == 0, done.stderr
    tests = {t["name"]: t for e in json.loads(done.stdout)["exercises"] for t in e["tests"]}
    assert tests["negatives"]["hidden"] and tests["negatives"]["input"] == SECRET_CALL
    assert tests["two words"]["input"] == f"{SECRET_STDIN}\n"
    assert tests["small"]["input"] == "add(1, 2)"


HIDDEN = Outcome("negatives", Verdict.WRONG_ANSWER, 0.0, 1.0, hidden=True, feedback="wrong answer")
VISIBLE = Outcome("small", Verdict.WRONG_ANSWER, 0.0, 1.0, expected="3", actual="4", input="add(1, 2)")
DETAIL = StaffDetail("negatives", "-4", "0", "", SECRET_CALL)
REPORT = Report("add", "ada/add.py", (VISIBLE, HIDDEN), staff=(DETAIL,))


@pytest.mark.parametrize(("reader", "detail", "expected"), [
    (Reader.STAFF, DETAIL, (SECRET_CALL, "-4", "0")),
    (Reader.STUDENT, DETAIL, (None, None, None)),  # handed the details by mistake: the rule still hides them
    (Reader.STAFF, None, (None, None, None)),  # an old store, no details kept: nothing made up
    (Reader.STAFF, StaffDetail("negatives", "-4", "0"), (None, "-4", "0")),  # kept before inputs were
])
def test_the_rule_for_a_hidden_test(reader: Reader, detail: StaffDetail | None,
                                    expected: tuple[str | None, ...]) -> None:
    seen = seen_test(HIDDEN, detail, reader)
    assert (seen.input, seen.expected, seen.actual) == expected


def test_a_visible_test_reads_the_same_to_both_and_a_student_report_keeps_no_details() -> None:
    assert [s.input for s in seen_tests(REPORT, Reader.STUDENT)] == ["add(1, 2)", None]
    assert [s.input for s in seen_tests(REPORT, Reader.STAFF)] == ["add(1, 2)", SECRET_CALL]
    assert report_seen(REPORT, Reader.STUDENT).staff == () and report_seen(REPORT, Reader.STAFF) is REPORT
    withheld = report_seen(REPORT, Reader.STUDENT, hidden_released=False)
    assert [o.test for o in withheld.outcomes] == ["small"] and withheld.visible_only
