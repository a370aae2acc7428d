"""The engine on hand-ins as the server would hand them over: (student, exercise, submitted_at, report)
records, the report a JSON dict. Whatever a record holds (a missing field, a wrong type, a huge value, an
odd name), the answer is figures and notes, never a traceback."""

from __future__ import annotations

import json
import math

import pytest
from jsonschema import Draft202012Validator

from grader.analytics import Handin, analyse, exercise_analytics
from grader.analytics.export import json_text, tables
from grader.analytics.handins import SHOWN
from grader.analytics.mutants import read_mutants
from grader.schemas import load

VALIDATOR = Draft202012Validator(load("analytics"))


def report(*tests: tuple[str, str, object], hidden: tuple[str, ...] = ()) -> dict:
    """A report as `grader check --format json` writes it (staff details beside it for hidden tests):
    each test (name, verdict, actual)."""
    entries, staff = [], []
    for name, verdict, actual in tests:
        entry = {"name": name, "hidden": name in hidden, "big": False, "verdict": verdict,
                 "points": 1.0 if verdict == "passed" else 0.0, "max_points": 1.0, "feedback": "",
                 "cpu_seconds": 0.01, "limit_seconds": 1.0}
        if name in hidden:
            staff.append({"test": name, "expected": "10", "actual": actual, "traceback": ""})
        else:
            entry.update(expected="10", actual=actual, details="")
        entries.append(entry)
    return {"version": 1, "exercise": "add", "submission": "add.py",
            "verdict": next((t[1] for t in tests if t[1] != "passed"), "passed"),
            "score": sum(e["points"] for e in entries), "max_score": float(len(entries)), "tests": entries,
            "isolation": "", "visible_only": False, "staff_details": staff}


RIGHT = report(("small", "passed", None), ("big", "passed", None))
OFF_BY_ONE = report(("small", "wrong_answer", "9"), ("big", "wrong_answer", "99"), hidden=("big",))


def valid(analytics: dict) -> dict:
    assert list(VALIDATOR.iter_errors(analytics)) == []
    json.loads(json_text(analytics))  # and it is written
    tables(analytics)
    return analytics


def test_the_schema_is_a_valid_json_schema() -> None:
    Draft202012Validator.check_schema(load("analytics"))


def test_the_first_latest_and_best_submission_each_give_a_share() -> None:
    analytics = valid(analyse([
        ("ann", "add", 100.0, OFF_BY_ONE), ("ann", "add", 200.0, RIGHT), ("ann", "add", 300.0, OFF_BY_ONE),
        ("bob", "add", 100.0, OFF_BY_ONE),
        ("cy", "add", 100.0, RIGHT),
        ("dee", "add", 50.0, OFF_BY_ONE), ("dee", "add", 400.0, RIGHT)]))
    [add] = analytics["exercises"]
    assert (add["failing_share_first"], add["failing_share"], add["failing_share_best"]) == (3 / 4, 2 / 4, 1 / 4)
    small = add["tests"][0]
    assert small["name"] == "small" and (small["failing"], small["failing_share"]) == (2, 0.5)
    assert small["first_pass"] == {"students": 3, "never": 1, "attempts_median": 2, "attempts_mean": 5 / 3,
                                   "seconds_median": 100.0, "seconds_mean": (100 + 0 + 350) / 3}
    [nine] = small["wrong_answers"]
    assert (nine["answer"], nine["students"], nine["latest_students"], nine["submissions"]) == ("9", 3, 2, 4)
    assert nine["example"] == {"student": "ann", "submission": None, "submitted_at": "1970-01-01T00:01:40Z"}


def test_a_hidden_tests_wrong_answers_come_from_the_staff_details() -> None:
    [add] = valid(analyse([("ann", "add", None, OFF_BY_ONE)]))["exercises"]
    big = add["tests"][1]
    assert big["hidden"] and big["wrong_answers"][0]["answer"] == "99" and big["wrong_answers"][0]["expected"] == "10"


def test_answers_group_by_verdict_and_text_and_some_verdicts_by_the_verdict_alone() -> None:
    def one(verdict: str, actual: object, feedback: str = "") -> dict:
        made = report(("t", verdict, actual))
        made["tests"][0]["feedback"] = feedback
        return made

    [ex] = valid(analyse([
        ("a", "add", None, one("wrong_answer", "9")), ("b", "add", None, one("wrong_answer", "9")),
        ("c", "add", None, one("wrong_answer", "9 ")),  # another text: another answer
        ("d", "add", None, one("timeout", None, "stopped after 2.01 s of CPU")),
        ("e", "add", None, one("timeout", None, "stopped after 2.31 s of CPU")),  # one timeout
        ("f", "add", None, one("runtime_error", None, "IndexError: list index out of range\nmore")),
        ("g", "add", None, one("wrong_answer", [1, 2])),  # a forged report's JSON value: shown as JSON
        ("h", "add", None, one("skipped", None))]))["exercises"]
    groups = [(a["verdict"], a["answer"], a["students"]) for a in ex["tests"][0]["wrong_answers"]]
    assert groups == [("timeout", None, 2), ("wrong_answer", "9", 2), ("runtime_error", "IndexError: list index out of range", 1),
                      ("wrong_answer", "9 ", 1), ("wrong_answer", "[1, 2]", 1)]
    assert ex["tests"][0]["failing"] == 7  # skipped is not a mistake


def test_a_huge_answer_is_shown_bounded_and_grouped_whole() -> None:
    huge = "7" * 5_000_000
    almost = huge[:-1] + "8"
    [ex] = valid(analyse([("a", "add", None, report(("t", "wrong_answer", huge))),
                          ("b", "add", None, report(("t", "wrong_answer", huge))),
                          ("c", "add", None, report(("t", "wrong_answer", almost)))]))["exercises"]
    first, second = ex["tests"][0]["wrong_answers"]
    assert (first["students"], second["students"]) == (2, 1)  # equal in their first characters, not equal
    assert first["answer_length"] == 5_000_000
    assert first["answer"] == "7" * SHOWN + f"… ({5_000_000 - SHOWN} more characters)"
    assert len(json_text(analyse([("a", "add", None, report(("t", "wrong_answer", huge)))]))) < 10_000


@pytest.mark.parametrize("record", [
    None, 42, "text", (), ("a", "add"), ("a", "add", 1.0, "not a dict"), (None, "add", 1.0, RIGHT),
    ("", "add", 1.0, RIGHT), ("a", 7, 1.0, RIGHT), {"student": "a"}, [1, 2, 3, 4, 5, 6]])
def test_a_record_that_is_no_hand_in_is_left_out_with_a_note(record: object) -> None:
    analytics = valid(analyse([record, ("cy", "add", None, RIGHT)]))
    assert [e["students"] for e in analytics["exercises"]] == [1]
    assert len(analytics["notes"]) == 1 and analytics["notes"][0].startswith("1 record left out: ")


@pytest.mark.parametrize("forged", [
    {}, {"tests": None}, {"tests": "all"}, {"tests": [None, 3, {}, {"name": 5}, {"name": "t"}]},
    {"tests": [{"name": "t", "verdict": "exploded", "points": "lots", "hidden": "yes"}], "score": "∞"},
    {"tests": [{"name": "t", "verdict": "wrong_answer", "actual": {"deep": [[[[]]]]}, "points": 10 ** 400}],
     "score": math.inf, "staff_details": "none"},
    {"tests": [{"name": "t", "verdict": "wrong_answer"}, {"name": "t", "verdict": "passed"}],
     "staff_details": [None, {"test": 3}, {"test": "t", "actual": None}]},
    {"tests": [{"name": "\udce9\u202e\x1b[31m", "verdict": "runtime_error", "feedback": ["not", "text"]}]},
])
def test_a_report_with_missing_or_forged_fields_is_read_as_what_it_can_be(forged: dict) -> None:
    analytics = valid(analyse([("a", "add", 1.0, forged), ("b", "add", 2.0, RIGHT)]))
    assert analytics["exercises"][0]["students"] == 2


@pytest.mark.parametrize("when", [math.nan, math.inf, -math.inf, 10 ** 400, True, "yesterday", "x" * 10_000,
                                  [1], "2026-12-03T10:00:00Z"])
def test_any_time_is_a_time_or_unknown(when: object) -> None:
    [ex] = valid(analyse([("a", "add", when, OFF_BY_ONE), ("a", "add", 5.0, RIGHT)]))["exercises"]
    assert ex["students"] == 1 and ex["submissions"] == 2


def test_times_as_the_api_writes_them_order_the_hand_ins() -> None:
    [ex] = valid(analyse([Handin("a", "add", "2026-12-03T10:10:00Z", RIGHT, "2"),
                          Handin("a", "add", "2026-12-03T10:00:00Z", OFF_BY_ONE, "1")]))["exercises"]
    assert ex["failing_share_first"] == 1.0 and ex["failing_share"] == 0.0
    assert ex["first_pass"]["seconds_median"] == 600.0 and ex["first_pass"]["attempts_median"] == 2
    assert ex["tests"][0]["wrong_answers"][0]["example"]["submission"] == "1"


def test_odd_names_are_kept_and_cut_only_where_shown() -> None:
    names = ["zoë", "علي", "\u202egnp.exe", "jos\udce9", "=HYPERLINK(\"x\")", "n" * 1000]
    analytics = valid(analyse([(n, "add", None, OFF_BY_ONE) for n in names]))
    assert analytics["students"] == 6
    examples = {a["example"]["student"] for t in analytics["exercises"][0]["tests"] for a in t["wrong_answers"]}
    assert examples <= set(names) | {"n" * SHOWN + f"… ({1000 - SHOWN} more characters)"}
    text = json_text(analytics)
    assert "\u202e" not in text and "\udce9" not in text  # escaped: \u202e, \udce9
    from grader.outputs.cells import csv_text

    cells = csv_text(tables(analytics)["wrong-answers.csv"])
    assert "\u202e" not in cells and ",=HYPERLINK" not in cells


def test_the_api_gets_one_exercise_with_a_name_and_failing_share_per_test() -> None:
    handins = [("a", "add", 1.0, OFF_BY_ONE), ("b", "add", 1.0, RIGHT), ("b", "sub", 1.0, RIGHT)]
    add = exercise_analytics(handins, "add")
    assert add is not None and add["id"] == "add"
    assert [(t["name"], t["failing_share"], [w["answer"] for w in t["wrong_answers"]]) for t in add["tests"]] == [
        ("small", 0.5, ["9"]), ("big", 0.5, ["99"])]
    assert exercise_analytics(handins, "nobody-did-this") is None


def test_the_mutants_that_fail_the_tests_a_group_fails_are_named() -> None:
    mutants = read_mutants({"exercises": [
        {"id": "add", "mutants": [
            {"id": "ref:range@3:4", "rule": "range", "what": "off by one in a range", "status": "killed",
             "killed_by": ["small", "big"]},
            {"id": "ref:statement@2:4", "rule": "statement", "what": "`return` left out", "status": "killed",
             "killed_by": ["small"]},
            {"id": "ref:survivor", "rule": "constant", "what": "kept", "status": "survived", "killed_by": []},
            {"id": "ref:gone", "rule": "range", "what": "a test since removed", "status": "killed",
             "killed_by": ["removed"]},
            "junk", {"status": "killed", "killed_by": "small"}]},
        {"id": 3}, "junk"]})
    handins = [(f"s{n:02d}", "add", None, OFF_BY_ONE if n < 41 else RIGHT) for n in range(100)]
    analytics = valid(analyse(handins, mutants=mutants))
    [add] = analytics["exercises"]
    [pattern] = add["failure_patterns"]
    assert (pattern["failing_tests"], pattern["students"], pattern["share"]) == (["small", "big"], 41, 0.41)
    assert pattern["mutants"] == [{"id": "ref:range@3:4", "rule": "range", "what": "off by one in a range"}]
    assert [(m["id"], m["students"], m["sentence"]) for m in add["mutants"]] == [
        ("ref:range@3:4", 41, "off by one in a range fails exactly the tests 41% of the class fails"),
        ("ref:statement@2:4", 0, "`return` left out fails exactly the tests 0% of the class fails")]
    assert any("1 mutants fail tests this class's reports do not have" in n for n in analytics["notes"])


def test_a_class_of_a_thousand_students_with_five_hand_ins_each_is_analysed() -> None:
    """No timing here (a test never assumes how fast the machine is): the figures stay exact at that size."""
    handins = []
    for n in range(1000):
        for attempt in range(5):
            handins.append((f"student{n:04d}", "add", 1000.0 * attempt, RIGHT if attempt == 4 and n % 4 else OFF_BY_ONE))
    [add] = valid(analyse(handins))["exercises"]
    assert (add["students"], add["submissions"], add["failing_share"], add["failing_share_first"]) == (1000, 5000, 0.25, 1.0)
    assert add["first_pass"] == {"students": 750, "never": 250, "attempts_median": 5, "attempts_mean": 5.0,
                                 "seconds_median": 4000.0, "seconds_mean": 4000.0}
    assert add["tests"][0]["wrong_answers"][0]["submissions"] == 750 * 4 + 250 * 5


def test_a_stored_report_with_its_staff_details_is_read_as_the_server_would_hand_it_over() -> None:
    from grader.analytics.reports import staff_report
    from grader.model import Outcome, Report, StaffDetail, Verdict

    stored = Report("add", "add.py", (
        Outcome("small", Verdict.WRONG_ANSWER, 0.0, 1.0, expected="10", actual="9"),
        Outcome("big", Verdict.WRONG_ANSWER, 0.0, 1.0, hidden=True, feedback="wrong answer")),
        staff=(StaffDetail("big", "100", "99"),))
    shown = staff_report(stored)
    assert "actual" not in shown["tests"][1] and shown["staff_details"][0]["actual"] == "99"
    [add] = valid(analyse([Handin("ann", "add", 1.0, shown, "17")]))["exercises"]
    assert [(t["name"], t["wrong_answers"][0]["answer"], t["wrong_answers"][0]["expected"]) for t in add["tests"]] == [
        ("small", "9", "10"), ("big", "99", "100")]
