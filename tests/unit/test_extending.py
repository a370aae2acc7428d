"""The recipes of docs/architecture.md, done from this file alone: a toy checker and a toy kind are
registered with one line each, a spec names them, and grading uses them."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.checkers import CHECKERS
from grader.grading import grade
from grader.kinds import KINDS, SubmissionKind
from grader.model import CheckResult, RunResult, Verdict
from grader.spec import load_exercise


def within_one(expected: object, actual: object) -> CheckResult:
    """A toy checker: a number one off the expected one passes."""
    try:
        close = abs(int(str(actual).strip()) - int(str(expected))) <= 1
    except ValueError:
        return CheckResult(passed=False, feedback="not a number")
    return CheckResult(passed=close, feedback="" if close else f"expected about {expected}")


class GuessKind(SubmissionKind):
    """A toy kind: the hand-in is a number typed in a text file, judged as it is (nothing runs)."""

    name = "guess"
    suffix = ".txt"
    runs_code = False
    starter_lexer = "text"

    def judged_here(self, source: str) -> RunResult:
        return RunResult(stdout=source.strip())


SPEC = """\
title: Guess the number of solutions of 8 queens
kind: guess
statement: How many ways are there to place 8 queens?
checker: within-one
tests:
  - name: the count
    expect: 92
"""


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(CHECKERS, "within-one", within_one)  # the checker's registry line
    monkeypatch.setitem(KINDS, "guess", GuessKind())  # the kind's registry line


@pytest.mark.parametrize(("answer", "verdict"), [("92\n", Verdict.PASSED), ("93", Verdict.PASSED),
                                                 ("90", Verdict.WRONG_ANSWER), ("many", Verdict.WRONG_ANSWER)])
def test_a_toy_kind_and_a_toy_checker_grade_from_a_spec(registered: None, tmp_path: Path, answer: str,
                                                          verdict: Verdict) -> None:
    spec = tmp_path / "exercises" / "guess-queens.yaml"
    spec.parent.mkdir()
    spec.write_text(SPEC)
    exercise = load_exercise(spec)
    assert exercise.kind == "guess" and exercise.tests[0].checker.name == "within-one"
    hand_in = tmp_path / "guess.txt"
    hand_in.write_text(answer)
    assert grade(exercise, hand_in).verdict == verdict


def test_a_spec_naming_an_unregistered_kind_lists_the_registered_ones(tmp_path: Path) -> None:
    spec = tmp_path / "guess-queens.yaml"
    spec.write_text(SPEC.replace("checker: within-one\n", ""))
    with pytest.raises(Exception) as error:
        load_exercise(spec)
    assert "unknown kind 'guess'; known kinds: function, program, predict" in str(error.value)
