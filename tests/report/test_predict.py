"""A predict question teaches: lines marked right or wrong, the answer only after the attempts the spec
sets, a hint for a known wrong answer, and spec mistakes named at file:line:col."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.errors import SpecError
from grader.grading import GradingRequest, grade
from grader.spec import load_exercise
from tests.conftest import run_cli
from tests.report.conftest import render

PREDICT = """title: Squares
kind: predict
statement: Write what it prints.
snippet: |
  for i in range(3):
      print(i, i * i)
{extra}tests:
  - name: Output
"""
WRONG = "0 0\n1 2\n2 4\n"  # 1 * 1 read as 1 + 1


def spec(extra: str = "") -> str:
    return PREDICT.format(extra=extra)


def test_a_wrong_prediction_marks_each_line_and_keeps_the_answer(write) -> None:
    exercise, submission = write(spec(), WRONG, exercise_id="squares", name="answer.txt")
    report = grade(exercise, submission, GradingRequest(attempt=1))
    text = render(report)
    assert "2 of 3 lines right; the answer is shown after 2 more wrong checks" in text
    assert "│ ✓ 0 0" in text and "│ ✗ 1 2" in text and "│ ✓ 2 4" in text
    assert "1 1" not in text  # the expected line is never printed
    assert report.outcomes[0].expected is None  # nor put in the JSON


def test_the_answer_is_shown_from_the_attempt_the_spec_sets(write) -> None:
    exercise, submission = write(spec("reveal_after: 2\n"), WRONG, exercise_id="squares", name="answer.txt")
    assert "after 1 more wrong check" in render(grade(exercise, submission, GradingRequest(attempt=1)))
    text = render(grade(exercise, submission, GradingRequest(attempt=2)))
    assert "the answer is shown below" in text and "The answer:" in text and "│   1 1" in text


def test_never_reveal_and_a_batch_never_shows_it(write) -> None:
    exercise, submission = write(spec("reveal_after: never\n"), WRONG, exercise_id="squares", name="answer.txt")
    assert "1 1" not in render(grade(exercise, submission, GradingRequest(attempt=50)))
    assert "1 1" not in render(grade(exercise, submission))


def test_a_known_wrong_answer_gets_its_hint(write) -> None:
    extra = ('misconceptions:\n  - output: "0 0\\n1 2\\n2 4\\n"\n'
             '    hint: "i * i multiplies: 1 * 1 is 1, not 2."\n')
    exercise, submission = write(spec(extra), WRONG, exercise_id="squares", name="answer.txt")
    assert "│ hint: i * i multiplies: 1 * 1 is 1, not 2." in render(grade(exercise, submission, GradingRequest(attempt=1)))
    other, _ = write(spec(extra), "0 0\n1 1\n2 5\n", exercise_id="squares", name="other.txt")
    assert "hint:" not in render(grade(other, submission.with_name("other.txt"), GradingRequest(attempt=1)))


def test_grader_check_counts_wrong_checks_per_user(write, tmp_path: Path) -> None:
    exercise, submission = write(spec("reveal_after: 2\n"), WRONG, exercise_id="squares", name="answer.txt")
    env = {"GRADER_CACHE": str(tmp_path / "state"), "COLUMNS": "100"}
    folder = exercise.path.parent
    first = run_cli("check", "squares", submission, "--exercises", folder, env=env)
    second = run_cli("check", "squares", submission, "--exercises", folder, env=env)
    assert first.returncode == second.returncode == 1
    assert "The answer:" not in first.stdout and "The answer:" in second.stdout


@pytest.mark.parametrize(("extra", "where", "message"), [
    ("reveal_after: 0\n", (7, 15), "'reveal_after' must be a whole number of wrong checks (1 or more) or 'never'"),
    ("reveal_after: soon\n", (7, 15), "'reveal_after' must be a whole number"),
    ("misconceptions: a hint\n", (7, 17), "'misconceptions' must be a list of {output: ..., hint: ...}"),
    ("misconceptions:\n  - just text\n", (8, 5), "a misconception must be a mapping with 'output' and 'hint'"),
    ("misconceptions:\n  - {output: x, tip: y}\n", (8, 17), "unknown key 'tip' in a misconception"),
    ("misconceptions:\n  - {output: x}\n", (8, 5), "a misconception needs 'hint'"),
    ("misconceptions:\n  - {output: x, hint: [a]}\n", (8, 23), "a misconception's 'hint' must be text"),
])
def test_teaching_keys_with_errors_are_named_at_file_line_col(write, extra: str, where: tuple[int, int],
                                                               message: str) -> None:
    with pytest.raises(SpecError) as raised:
        write(spec(extra), WRONG, exercise_id="squares", name="answer.txt")
    text = str(raised.value)
    assert f"squares.yaml:{where[0]}:{where[1]}: {message}" in text


def test_teaching_keys_belong_to_predict_exercises(write) -> None:
    function = ("title: T\nkind: function\nentry: f\nstatement: s\nreveal_after: 2\n"
                "tests:\n  - {name: a, call: 'f()', expect: 1}\n")
    with pytest.raises(SpecError) as raised:
        write(function, "def f():\n    return 1\n", exercise_id="t")
    assert "t.yaml:5:15: 'reveal_after' is for another kind of exercise; this is a function exercise" in str(raised.value)
