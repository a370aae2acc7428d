"""`grader check --format gradescope|prairielearn|github-classroom`: each platform's own format, checked
against a schema written from that platform's specification, with hidden tests revealing nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from grader.model import Outcome, Report, Verdict
from grader.platforms.gradescope.results import Graded, results
from tests.conftest import REFERENCE, run_cli
from tests.platforms.schemas import problems

SCHEMAS = {"gradescope": "gradescope-results", "prairielearn": "prairielearn-results",
           "github-classroom": "github-classroom-results"}
PASSING = REFERENCE / "every-way" / "accepted" / "plain_sets.py"
WRONG = REFERENCE / "every-way" / "wrong_answer" / "zero_based.py"  # fails visible and hidden tests


def check(path: Path, fmt: str, exercise: str = "every-way") -> dict:
    result = run_cli("check", exercise, path, "--format", fmt)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def unparsable(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("broken") / "every-way.py"
    path.write_text("def every_way(n:\n    return []\n")
    return path


@pytest.mark.parametrize("fmt", sorted(SCHEMAS))
@pytest.mark.parametrize("which", ["passing", "wrong", "unparsable"])
def test_every_platform_format_is_valid_against_its_specification(fmt: str, which: str, unparsable: Path) -> None:
    path = {"passing": PASSING, "wrong": WRONG, "unparsable": unparsable}[which]
    assert problems(SCHEMAS[fmt], check(path, fmt)) == []


@pytest.mark.parametrize("fmt", sorted(SCHEMAS))
def test_a_hidden_test_shows_no_expected_value_or_output_in_any_platform_format(fmt: str) -> None:
    text = json.dumps(check(WRONG, fmt))
    report = check(WRONG, "json")
    hidden_failures = [t for t in report["tests"] if t["hidden"] and t["verdict"] == "wrong_answer"]
    assert hidden_failures, "the wrong reference must fail a hidden test for this test to mean anything"
    visible = [t for t in report["tests"] if not t["hidden"] and t["verdict"] == "wrong_answer"]
    assert visible and "expected:" in text  # a visible failure shows its values...
    for entry in (t for t in check(WRONG, fmt).get("tests", []) if _hidden(t, report)):
        shown = json.dumps(entry)
        assert "expected:" not in shown and "actual:" not in shown  # ...a hidden one never does


def _hidden(entry: dict, report: dict) -> bool:
    hidden = {t["name"] for t in report["tests"] if t["hidden"]}
    return entry.get("visibility") == "after_published" or entry.get("name") in hidden


def test_prairielearn_scores_a_fraction_and_refuses_a_file_that_does_not_parse(unparsable: Path) -> None:
    report = check(WRONG, "json")
    graded = check(WRONG, "prairielearn")
    assert graded["gradable"] is True
    assert graded["score"] == pytest.approx(report["score"] / report["max_score"])
    assert 0 < graded["score"] < 1
    assert [(t["name"], t["points"], t["max_points"]) for t in graded["tests"]] == \
           [(t["name"], t["points"], t["max_points"]) for t in report["tests"]]
    assert check(PASSING, "prairielearn")["score"] == 1.0
    invalid = check(unparsable, "prairielearn")
    assert invalid["gradable"] is False and "score" not in invalid
    assert "line 1" in invalid["format_errors"][0]


def test_github_classroom_gets_points_per_test_and_an_overall_status() -> None:
    report = check(WRONG, "json")
    runner = check(WRONG, "github-classroom")
    assert runner["status"] == "fail" and runner["max_score"] == report["max_score"]
    assert sum(t["score"] for t in runner["tests"]) == report["score"]  # what notify-classroom.js adds up
    assert {t["status"] for t in runner["tests"]} == {"pass", "fail"}
    passing = check(PASSING, "github-classroom")
    assert passing["status"] == "pass" and {t["status"] for t in passing["tests"]} == {"pass"}


def test_gradescope_for_one_check_tags_hidden_tests_after_published() -> None:
    graded = check(WRONG, "gradescope")
    report = check(WRONG, "json")
    assert graded["score"] == report["score"] == sum(t["score"] for t in graded["tests"])
    assert [t["visibility"] for t in graded["tests"]] == \
           ["after_published" if t["hidden"] else "visible" for t in report["tests"]]


# ---------------------------------------------------------------- the student-visible summary
def _report(exercise: str, *outcomes: tuple[str, bool, bool]) -> Report:
    return Report(exercise, f"{exercise}.py", tuple(
        Outcome(name, Verdict.PASSED if passed else Verdict.WRONG_ANSWER, 2.0 if passed else 0.0, 2.0, hidden=hidden)
        for name, passed, hidden in outcomes))


def test_the_summary_never_states_a_total_while_hidden_tests_withhold_it() -> None:
    graded = [Graded("a", "a.py", _report("a", ("one", True, False), ("two", False, True))),
              Graded("b", "b.py", _report("b", ("three", True, True)))]
    output = results(graded)["output"]
    assert not re.search(r"\d\s*/\s*\d", output), output
    assert "Score" not in output and "4" not in output
    assert "a (a.py): 1 of 1 visible tests passed; 1 hidden test" in output


def test_with_no_hidden_test_the_summary_states_the_score() -> None:
    graded = [Graded("a", "a.py", _report("a", ("one", True, False), ("two", False, False)))]
    output = results(graded)["output"]
    assert output.splitlines()[0] == "Score 2/4"
    assert "a (a.py): 2/4 (wrong_answer)" in output
