"""A test's feedback chosen by what went wrong: by verdict, and for a wrong answer by what its check found
(another type, another value, items missing, no exception, another class, another message, a program's
status or files), the same in `grader check`, a batch and for a hidden test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.checkers import run_checker
from grader.forms.raises import ExpectedRaise, Raised, raise_reason
from grader.model import CHECK_REASONS, CheckerSpec
from tests.conftest import run_cli

PAIR = """title: Pair
kind: function
entry: pair
statement: The pair (n, 2n) as a tuple; ValueError for n < 1.
tests:
  - name: two
    call: pair(2)
    feedback:
      wrong_answer:
        type: Return a tuple, not a list.
        any: Double the number.
      runtime_error: It must not raise for 2.
  - name: secret
    call: pair(5)
    hidden: true
    feedback:
      wrong_answer: {type: "Return a tuple, not a list."}
  - name: zero
    call: pair(0)
    raises: {class: ValueError, message_equals: n must be at least 1}
    feedback:
      wrong_answer:
        no_exception: Raise ValueError for 0.
        exception: ValueError, not another class.
        message: The message must say 'n must be at least 1'.
"""
GOOD = """def pair(n):
    if n < 1:
        raise ValueError("n must be at least 1")
    return (n, 2 * n)
"""
SUBMISSIONS = {
    "a list": (GOOD.replace("return (n, 2 * n)", "return [n, 2 * n]"),
               {"two": "Return a tuple, not a list.", "secret": "Return a tuple, not a list."}),
    "a wrong value": (GOOD.replace("2 * n)", "3 * n)"), {"two": "Double the number.", "secret": "wrong answer"}),
    "no exception": (GOOD.replace("    if n < 1:\n        raise ValueError(\"n must be at least 1\")\n", ""),
                     {"zero": "Raise ValueError for 0."}),
    "another class": (GOOD.replace("raise ValueError", "raise TypeError"), {"zero": "ValueError, not another class."}),
    "another message": (GOOD.replace("at least 1", "positive"),
                        {"zero": "The message must say 'n must be at least 1'."}),
    "a crash": (GOOD.replace("return (n, 2 * n)", "return n / 0"), {"two": "It must not raise for 2."}),
}


def ends_with_hint(feedback: str, hint: str) -> bool:
    return feedback == hint or feedback.endswith(f"— {hint}")


@pytest.fixture
def pair_course(course):  # noqa: ANN001, ANN201
    course.write("pair", PAIR)
    course.reference("pair", "plain.py", GOOD)
    return course


@pytest.mark.parametrize("case", sorted(SUBMISSIONS))
def test_check_shows_the_feedback_for_what_went_wrong(pair_course, case: str) -> None:  # noqa: ANN001
    code, hints = SUBMISSIONS[case]
    path = pair_course.submission("pair.py", code)
    tests = {t["name"]: t for t in run_cli("check", "--exercises", pair_course.exercises, "pair", path,
                                           "--format", "json").json()["tests"]}
    for name, hint in hints.items():
        feedback = tests[name]["feedback"]
        assert ends_with_hint(feedback, hint) or (hint == "wrong answer" and "wrong answer" in feedback), \
            (name, feedback)
    others = {text for _, (_, hs) in SUBMISSIONS.items() for text in hs.values()} - set(hints.values())
    for test in tests.values():
        assert not any(test["feedback"].endswith(other) for other in others if other != "wrong answer"), test


def test_a_batch_gives_the_same_feedback_as_check(pair_course, tmp_path: Path) -> None:  # noqa: ANN001
    root = tmp_path / "class"
    for number, (code, _) in enumerate(SUBMISSIONS.values()):
        (root / f"s{number}").mkdir(parents=True)
        (root / f"s{number}" / "pair.py").write_text(code)
    out = tmp_path / "out"
    done = run_cli("batch", root, "--exercises", pair_course.exercises, "--out", out)
    assert done.returncode in (0, 1), done.stderr
    book = json.loads((out / "grades.json").read_text())
    for student in book["students"]:
        code = (root / student["student"] / "pair.py")
        checked = run_cli("check", "--exercises", pair_course.exercises, "pair", code, "--format", "json",
                          "--all").json()
        graded = student["exercises"]["pair"]["tests"]
        assert [(t["name"], t["verdict"], t["feedback"]) for t in graded] == \
               [(t["name"], t["verdict"], t["feedback"]) for t in checked["tests"]]


def test_an_unknown_reason_is_named_with_its_line(pair_course) -> None:  # noqa: ANN001
    pair_course.write("pair", PAIR.replace("        type: Return a tuple", "        typ: Return a tuple"))
    result = run_cli("validate", "--exercises", pair_course.exercises, "pair")
    out = result.stdout + result.stderr
    assert result.returncode != 0
    assert "pair.yaml:10:9:" in out and "unknown key 'typ' in feedback of test 'two': wrong_answer (did you mean 'type'?)" in out


def test_a_course_checker_names_its_own_reasons(course) -> None:  # noqa: ANN001
    course.write("sq", """title: Sq
kind: function
entry: sq
statement: s
checker: {file: check.py, function: check}
tests:
  - name: four
    call: sq(2)
    feedback:
      wrong_answer: {negative: Squares are never negative., any: Square it.}
""")
    (course.exercises / "check.py").write_text(
        "def check(input, answer, expected):\n"
        "    if answer == expected:\n        return True\n"
        "    return {'passed': False, 'feedback': 'no', 'reason': 'negative' if answer < 0 else 'other'}\n")
    course.reference("sq", "plain.py", "def sq(n):\n    return n * n\n")
    for code, hint in (("def sq(n):\n    return -n * n\n", "Squares are never negative."),
                       ("def sq(n):\n    return n + n + 1\n", "Square it.")):
        report = run_cli("check", "--exercises", course.exercises, "sq", course.submission("sq.py", code),
                         "--format", "json").json()
        assert report["tests"][0]["feedback"] == f"no — {hint}"


@pytest.mark.parametrize("checker, expected, actual, reason", [
    ("value", (1, 2), [1, 2], "type"),
    ("value", (1, 2), (1, 3), "value"),
    ("equal", 2, 3.0, "type"),
    ("equal", [1, 2], [1, 3], "value"),
    ("unordered", [1, 2], [2, 2], "items"),
    ("unordered", [(1, 2)], [[1, 2]], "type"),
    ("same_items", {1, 2}, {1}, "items"),
    ("close", 1.0, 1.5, "value"),
    ("close", 1.0, "1.0", "type"),
    ("output", "4\n", "5\n", "output"),
])
def test_every_checker_says_what_it_found(checker: str, expected: object, actual: object, reason: str) -> None:
    check = run_checker(CheckerSpec(checker), expected, actual)
    assert not check.passed and check.reason == reason and reason in CHECK_REASONS


def test_an_exceptions_reason() -> None:
    wanted = ExpectedRaise("ValueError", message_equals="x")
    assert raise_reason(wanted, 3) == "no_exception"
    assert raise_reason(wanted, Raised("TypeError", ("TypeError", "Exception"), "x")) == "exception"
    assert raise_reason(wanted, Raised("ValueError", ("ValueError", "Exception"), "y")) == "message"
