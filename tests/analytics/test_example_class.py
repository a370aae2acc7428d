"""The bundled example class, graded by `grader batch`, whose mistakes are known: alan numbers from zero
(every-way) and finds no floodlights, edsger's programs raise, donald's floodlights does not parse, grace's
brute force runs out of time, barbara hands in four exercises of eight. `grader analytics` finds each of
them, the hidden tests' answers included, and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from grader.schemas import load
from tests.conftest import EXERCISES, ROOT, run_cli


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("example-class") / "out"
    done = run_cli("batch", ROOT / "examples" / "class", "--exercises", EXERCISES, "--out", out, timeout=900)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def analytics(results: Path) -> dict:
    done = run_cli("analytics", results, "--format", "json")
    assert done.returncode == 0, done.stderr
    return done.json()


def mistakes(exercise: dict) -> dict[str, list[tuple[str, str | None, str]]]:
    """test -> its wrong answers as (verdict, answer's start, the example's student)."""
    return {t["name"]: [(a["verdict"], a["answer"] and a["answer"][:24], a["example"]["student"])
                        for a in t["wrong_answers"]] for t in exercise["tests"] if t["wrong_answers"]}


def test_the_analytics_of_the_example_class_match_its_schema(analytics: dict) -> None:
    assert list(Draft202012Validator(load("analytics")).iter_errors(analytics)) == []
    assert analytics["students"] == 6 and analytics["notes"] == []


def test_each_exercise_counts_the_students_who_handed_it_in_and_those_who_still_fail_it(analytics: dict) -> None:
    found = {e["id"]: (e["students"], e["failing"], e["failing_share"]) for e in analytics["exercises"]}
    assert found == {
        "chessboard-queens": (5, 1, 1 / 5), "count-queens": (6, 1, 1 / 6), "every-way": (5, 1, 1 / 5),
        "first-solution": (6, 1, 1 / 6), "floodlights": (5, 3, 3 / 5), "n-queens": (5, 1, 1 / 5),
        "n-queens-ii": (6, 1, 1 / 6), "predict-attacked": (6, 1, 1 / 6)}
    for exercise in analytics["exercises"]:  # a batch holds one hand-in each: first, latest and best are one
        assert exercise["failing_share_first"] == exercise["failing_share_best"] == exercise["failing_share"]
        assert exercise["first_pass"]["students"] == exercise["students"] - exercise["failing"]
        assert exercise["first_pass"]["attempts_median"] == 1 and exercise["first_pass"]["seconds_median"] is None


def test_each_known_mistake_is_a_wrong_answer_of_the_tests_it_fails_hidden_ones_included(analytics: dict) -> None:
    exercises = {e["id"]: e for e in analytics["exercises"]}
    every_way = mistakes(exercises["every-way"])
    assert every_way["n = 4"] == [("wrong_answer", "1 3 0 2\n2 0 3 1\n", "alan")]
    assert every_way["hidden case 1"] == [("wrong_answer", "0\n", "alan")]  # hidden: staff see the output
    assert set(every_way) == {"n = 4", "hidden case 1", "hidden case 3", "hidden case 4", "hidden case 5", "hidden case 6"}
    hidden = {t["name"]: t["hidden"] for t in exercises["every-way"]["tests"]}
    assert hidden["hidden case 1"] and not hidden["n = 4"]

    floodlights = mistakes(exercises["floodlights"])
    assert floodlights["solve(4)"] == [("syntax_error", None, "donald"), ("wrong_answer", "[]", "alan")]
    assert floodlights["hidden case 7, a large one in time"] == [("syntax_error", None, "donald"), ("timeout", None, "grace"),
                                       ("wrong_answer", "['#......../..#....../..", "alan")]
    solve_9 = next(t for t in exercises["floodlights"]["tests"] if t["name"] == "hidden case 7, a large one in time")
    assert (solve_9["failing"], solve_9["failing_share"]) == (3, 3 / 5)
    assert solve_9["verdicts"] == {"syntax_error": 1, "timeout": 1, "wrong_answer": 1}

    chessboard = mistakes(exercises["chessboard-queens"])
    assert chessboard["Sample board"] == [("runtime_error", "ValueError: invalid lite", "edsger")]
    assert chessboard["A whole row reserved"] == [("runtime_error", "ValueError", "edsger")]  # hidden: its type
    assert mistakes(exercises["n-queens"])["n = 4"] == [("runtime_error", "IndexError: list index o", "edsger")]
    assert mistakes(exercises["count-queens"]) == {"hidden case 5, a large one in time": [("timeout", None, "grace")]}
    assert mistakes(exercises["predict-attacked"]) == {"Output": [("wrong_answer", "0 attacked\n1 attacked\n2 ", "alan")]}


def test_an_example_names_the_file_it_came_from_and_what_the_test_expected(analytics: dict) -> None:
    every_way = next(e for e in analytics["exercises"] if e["id"] == "every-way")
    answer = next(t for t in every_way["tests"] if t["name"] == "hidden case 1")["wrong_answers"][0]
    assert answer["example"] == {"student": "alan", "submission": "alan/every-way.py", "submitted_at": None}
    assert answer["expected"].strip() == "1"
    assert (answer["students"], answer["share"], answer["latest_students"], answer["submissions"]) == (1, 0.2, 1, 1)


def test_the_csv_tables_carry_the_same_figures_as_the_json(results: Path, analytics: dict, tmp_path: Path) -> None:
    import csv

    done = run_cli("analytics", results / "results.sqlite", "--format", "csv", "--out", tmp_path / "tables")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "tables").iterdir()) == [
        "exercises.csv", "failure-patterns.csv", "mutants.csv", "tests.csv", "wrong-answers.csv"]
    with (tmp_path / "tables" / "tests.csv").open(newline="", encoding="utf-8") as stream:
        tests = list(csv.DictReader(stream))
    assert len(tests) == sum(len(e["tests"]) for e in analytics["exercises"])
    row = next(r for r in tests if r["exercise"] == "floodlights" and r["test"] == "hidden case 7, a large one in time")
    assert (row["failing"], float(row["failing_share"]), row["verdicts"]) == ("3", 0.6, "syntax_error 1; timeout 1; wrong_answer 1")
    with (tmp_path / "tables" / "wrong-answers.csv").open(newline="", encoding="utf-8") as stream:
        answers = list(csv.DictReader(stream))
    alan = [r for r in answers if r["exercise"] == "every-way" and r["test"] == "n = 4"]
    assert [(r["verdict"], r["answer"], r["example_student"]) for r in alan] == [("wrong_answer", "1 3 0 2\n2 0 3 1\n", "alan")]


def test_the_default_csv_folder_is_beside_the_store(results: Path) -> None:
    done = run_cli("analytics", results, "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert (results / "analytics" / "tests.csv").is_file()
    assert f"wrote {results / 'analytics' / 'tests.csv'}" in done.stdout
