"""A class whose mistakes are made to order, graded for real by `grader batch` on examples/basics' `mean`:
41 students forget the empty list's check, 25 count from one, 10 divide with //, 24 are right. The
analytics give back exactly those shares and groups, and `grader validate --mutants` names the first
mistake: its mutants fail exactly the tests 41 % of the class fails."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from grader.analytics import analyse
from grader.analytics.batch_store import from_store
from grader.analytics.handins import Handin
from grader.analytics.mutants import load_mutants
from grader.schemas import load
from tests.conftest import ROOT, run_cli

BASICS = ROOT / "examples" / "basics" / "exercises"
RIGHT = "def mean(xs):\n    if not xs:\n        raise ValueError('no numbers')\n    return sum(xs) / len(xs)\n"
NO_CHECK = "def mean(xs):\n    return sum(xs) / len(xs)\n"
COUNT_FROM_ONE = ("def mean(xs):\n    total = 0\n    count = 1\n    for x in xs:\n        total += x\n"
                  "        count += 1\n    if count == 0:\n        raise ValueError('no numbers, no mean')\n"
                  "    return total / count\n")
FLOOR = "def mean(xs):\n    if not xs:\n        raise ValueError('no numbers')\n    return sum(xs) // len(xs)\n"
CLASS = [("no-check", NO_CHECK)] * 41 + [("count-from-one", COUNT_FROM_ONE)] * 25 + [("floor", FLOOR)] * 10 \
    + [("right", RIGHT)] * 24
# Names a store must keep as they are, or as their escapes: never a traceback, never a live control.
ODD = {96: "zoë-Ωμέγα", 97: "evil\u202egnp.exe", 98: "علي", 99: "=cmd|'calc'!A0"}
EMPTY = "an empty list raises ValueError"
EVERY_VALUE = ["mean([1, 2, 3, 4])", "mean([0.1, 0.2, 0.3])", "one number", EMPTY, "ints and floats together",
               "a mean that is not a whole number", "large ints", "a million floats"]


def name(number: int, mistake: str) -> str:
    return ODD.get(number, f"s{number:03d}-{mistake}")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("generated-class")
    for number, (mistake, code) in enumerate(CLASS):
        folder = root / "class" / name(number, mistake)
        folder.mkdir(parents=True)
        (folder / "mean.py").write_text(code)
    undecodable = os.fsencode(root / "class") + b"/jos\xe9-right"  # a folder name that is no UTF-8
    os.mkdir(undecodable)
    with open(undecodable + b"/mean.py", "w") as file:
        file.write(RIGHT)
    done = run_cli("batch", root / "class", "--exercises", BASICS, "--out", root / "out", timeout=900)
    assert done.returncode == 0, done.stderr
    mutants = run_cli("validate", "--mutants", "mean", "--exercises", BASICS, "--format", "json", timeout=900)
    assert mutants.returncode == 0, mutants.stderr
    (root / "out" / "mutants.json").write_text(mutants.stdout)
    return root / "out"


@pytest.fixture(scope="module")
def mean(graded: Path) -> dict:
    done = run_cli("analytics", graded, "--mutants", graded / "mutants.json", "--out", graded / "analytics.json")
    assert done.returncode == 0, done.stderr
    analytics = json.loads((graded / "analytics.json").read_text())
    assert list(Draft202012Validator(load("analytics")).iter_errors(analytics)) == []
    [exercise] = analytics["exercises"]
    return exercise


def test_the_share_failing_each_test_is_the_share_of_students_whose_mistake_fails_it(mean: dict) -> None:
    assert (mean["id"], mean["students"], mean["failing"], mean["failing_share"]) == ("mean", 101, 76, 76 / 101)
    shares = {t["name"]: (t["failing"], t["failing_share"]) for t in mean["tests"]}
    assert shares == {
        "mean([1, 2, 3, 4])": (35, 35 / 101), "mean([0.1, 0.2, 0.3])": (35, 35 / 101), "one number": (25, 25 / 101),
        EMPTY: (66, 66 / 101), "ints and floats together": (35, 35 / 101), "numbers that cancel out": (0, 0.0),
        "a mean that is not a whole number": (35, 35 / 101), "large ints": (25, 25 / 101),
        "a million floats": (35, 35 / 101)}


def test_equal_wrong_answers_are_counted_together_each_with_an_example(mean: dict) -> None:
    answers = {t["name"]: [(a["verdict"], a["answer"], a["students"], a["example"]["student"])
                           for a in t["wrong_answers"]] for t in mean["tests"]}
    assert answers["mean([1, 2, 3, 4])"] == [("wrong_answer", "2.0", 25, "s041-count-from-one"),
                                             ("wrong_answer", "2", 10, "s066-floor")]
    assert answers[EMPTY] == [("wrong_answer", "ZeroDivisionError: division by zero", 41, "s000-no-check"),
                              ("wrong_answer", "0.0", 25, "s041-count-from-one")]
    # 5.0 / 5 and 5.0 // 4 are one answer, whichever mistake gave it
    assert answers["ints and floats together"] == [("wrong_answer", "1.0", 35, "s041-count-from-one")]
    # a hidden test: its answers are there for staff
    hidden = next(t for t in mean["tests"] if t["name"] == "a mean that is not a whole number")
    assert hidden["hidden"] and answers[hidden["name"]] == [("wrong_answer", "1.0", 25, "s041-count-from-one"),
                                                            ("wrong_answer", "1", 10, "s066-floor")]
    assert hidden["wrong_answers"][0]["expected"] == "1.5"
    assert answers["numbers that cancel out"] == []


def test_the_students_who_forgot_a_check_fail_exactly_the_tests_its_mutants_fail(mean: dict) -> None:
    patterns = [(p["failing_tests"], p["students"], p["share"]) for p in mean["failure_patterns"]]
    assert patterns == [
        ([EMPTY], 41, 41 / 101),
        ([t for t in EVERY_VALUE], 25, 25 / 101),
        (["mean([1, 2, 3, 4])", "mean([0.1, 0.2, 0.3])", "ints and floats together",
          "a mean that is not a whole number", "a million floats"], 10, 10 / 101)]
    forgot = {m["id"] for m in mean["failure_patterns"][0]["mutants"]}
    assert {"sum_over_len:statement@5:4", "running_total:statement@10:4"} <= forgot  # `if not xs:` left out
    counted = {m["id"] for m in mean["failure_patterns"][1]["mutants"]}
    assert "running_total:constant@6:12" in counted  # `count = 0` became `count = 1`
    assert mean["failure_patterns"][2]["mutants"] == []  # no mutant divides with //
    named = {m["id"]: m for m in mean["mutants"]}
    assert named["sum_over_len:statement@5:4"]["students"] == 41
    assert named["sum_over_len:statement@5:4"]["sentence"] == \
        "`if not xs:` left out fails exactly the tests 41% of the class fails"
    assert mean["mutants"][0]["students"] == 41  # the commonest mistake first
    assert named["running_total:statement@5:4"]["students"] == 0  # a mistake nobody made


def test_resubmissions_move_the_latest_and_best_shares_and_time_the_first_pass(graded: Path) -> None:
    """The server's shape: several hand-ins a student, each with its time. Each count-from-one student hands
    in the right file ten minutes later; each floor student hands in the no-check file, which scores more,
    and then their floor file again."""
    handins = from_store(graded)
    right = next(h.report for h in handins if h.student == "s076-right")
    no_check = next(h.report for h in handins if h.student == "s000-no-check")
    start = 1_700_000_000.0
    timed = [Handin(h.student, h.exercise, start, h.report, h.submission) for h in handins]
    for h in handins:
        if h.student.endswith("count-from-one"):
            timed.append(Handin(h.student, h.exercise, start + 600, right, "second"))
        if h.student.endswith("floor"):
            timed.append(Handin(h.student, h.exercise, start + 60, no_check, "second"))
            timed.append(Handin(h.student, h.exercise, start + 120, h.report, "third"))
    [mean] = analyse(reversed(timed))["exercises"]  # the order of the input does not matter: the times do
    assert (mean["students"], mean["submissions"]) == (101, 146)
    assert (mean["failing_share_first"], mean["failing_share"], mean["failing_share_best"]) == (
        76 / 101, 51 / 101, 51 / 101)
    first = next(t for t in mean["tests"] if t["name"] == "mean([1, 2, 3, 4])")
    # first: count-from-one and floor; latest: floor; best: nobody (the floor students' no-check file passes it)
    assert (first["failing_share_first"], first["failing_share"], first["failing_share_best"]) == (
        35 / 101, 10 / 101, 0.0)
    empty = next(t for t in mean["tests"] if t["name"] == EMPTY)
    # first: no-check and count-from-one; latest: no-check; best: no-check and the floor students' no-check file
    assert (empty["failing_share_first"], empty["failing_share"], empty["failing_share_best"]) == (
        66 / 101, 41 / 101, 51 / 101)
    wrong = empty["wrong_answers"][0]
    assert (wrong["answer"], wrong["students"], wrong["latest_students"], wrong["submissions"]) == (
        "ZeroDivisionError: division by zero", 51, 41, 51)
    assert mean["first_pass"] == {"students": 50, "never": 51, "attempts_median": 1.5, "attempts_mean": 1.5,
                                  "seconds_median": 300.0, "seconds_mean": 300.0}
    # the example is the first hand-in that gave the answer, with its time as the API writes times
    assert wrong["example"] == {"student": "s000-no-check", "submission": "s000-no-check/mean.py",
                                "submitted_at": "2023-11-14T22:13:20Z"}


def test_odd_names_in_the_store_come_out_as_inert_text(graded: Path) -> None:
    students = {h.student for h in from_store(graded)}
    # the batch escapes what could hide or reorder text (a bidirectional override, a byte that is no UTF-8)
    assert {"zoë-Ωμέγα", "علي", "evil\\u202egnp.exe", "=cmd|'calc'!A0", "jos\\xe9-right"} <= students
    done = run_cli("analytics", graded, "--format", "csv", "--out", graded / "tables")
    assert done.returncode == 0, done.stderr
    text = "".join(p.read_text(encoding="utf-8") for p in (graded / "tables").iterdir())
    assert "\u202e" not in text and "\n=cmd" not in text and ",=cmd" not in text


def test_the_mutants_file_is_read_as_validate_wrote_it(graded: Path) -> None:
    mutants = load_mutants(graded / "mutants.json")
    assert set(mutants) == {"mean"}
    assert {m.status for m in mutants["mean"]} <= {"killed", "timed_out"}
