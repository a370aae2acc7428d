"""The analytics as files for an instructor's own analysis: one JSON document, or CSV tables (one row per
exercise, per test, per wrong answer, per failure pattern, per mutant), every cell through outputs/cells.py."""

from __future__ import annotations

import json
from pathlib import Path

from grader.outputs.cells import csv_text
from grader.outputs.files import write_atomic

FIRST_PASS = ("students", "never", "attempts_median", "attempts_mean", "seconds_median", "seconds_mean")
SHARES = ("failing_share", "failing_share_first", "failing_share_best")


def json_text(analytics: dict[str, object]) -> str:
    # ensure_ascii: a student's answer with controls or lone surrogates stays an inert \u escape.
    return json.dumps(analytics, indent=2, ensure_ascii=True) + "\n"


def write_json(analytics: dict[str, object], path: Path) -> list[Path]:
    return [write_atomic(path, json_text(analytics))]


def write_csv(analytics: dict[str, object], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [write_atomic(folder / name, csv_text(rows)) for name, rows in tables(analytics).items()]


def tables(analytics: dict[str, object]) -> dict[str, list[list[object]]]:
    """file name -> rows, a header first."""
    exercises: list[list[object]] = [["exercise", "students", "submissions", "failing", *SHARES,
                                      *(f"first_pass_{k}" for k in FIRST_PASS)]]
    tests: list[list[object]] = [["exercise", "test", "hidden", "students", "failing", *SHARES, "not_run", "verdicts",
                                  *(f"first_pass_{k}" for k in FIRST_PASS), "distinct_wrong_answers"]]
    answers: list[list[object]] = [["exercise", "test", "rank", "verdict", "answer", "answer_length", "expected",
                                    "students", "share", "latest_students", "submissions", "example_student",
                                    "example_submission", "example_submitted_at"]]
    patterns: list[list[object]] = [["exercise", "failing_tests", "students", "share", "mutants", "example_student"]]
    mutants: list[list[object]] = [["exercise", "mutant", "rule", "what", "status", "failing_tests", "students",
                                    "share", "sentence"]]
    for e in analytics["exercises"]:  # type: ignore[attr-defined]
        exercises.append([e["id"], e["students"], e["submissions"], e["failing"], *(e[k] for k in SHARES),
                          *(e["first_pass"][k] for k in FIRST_PASS)])
        for t in e["tests"]:
            tests.append([e["id"], t["name"], t["hidden"], t["students"], t["failing"], *(t[k] for k in SHARES),
                          t["not_run"], "; ".join(f"{v} {n}" for v, n in t["verdicts"].items()),
                          *(t["first_pass"][k] for k in FIRST_PASS), t["distinct_wrong_answers"]])
            for rank, a in enumerate(t["wrong_answers"], start=1):
                answers.append([e["id"], t["name"], rank, a["verdict"], a["answer"], a["answer_length"], a["expected"],
                                a["students"], a["share"], a["latest_students"], a["submissions"],
                                a["example"]["student"], a["example"]["submission"], a["example"]["submitted_at"]])
        for p in e["failure_patterns"]:
            patterns.append([e["id"], "; ".join(p["failing_tests"]), p["students"], p["share"],
                             "; ".join(m["what"] or m["id"] for m in p["mutants"]), p["example"]["student"]])
        for m in e["mutants"]:
            mutants.append([e["id"], m["id"], m["rule"], m["what"], m["status"], "; ".join(m["failing_tests"]),
                            m["students"], m["share"], m["sentence"]])
    return {"exercises.csv": exercises, "tests.csv": tests, "wrong-answers.csv": answers,
            "failure-patterns.csv": patterns, "mutants.csv": mutants}
