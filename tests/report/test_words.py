"""Grammar in one helper, and the summary lines that use it."""

from __future__ import annotations

from grader.checkers import value
from grader.grading import grade
from grader.words import a, count, listing
from tests.report.conftest import render

PASSING = """title: Double
kind: function
entry: double
statement: Return twice n.
tests:
{tests}
"""


def test_counts_and_articles() -> None:
    assert [count(1, "test"), count(2, "test"), count(0, "item"), count(3, "index")] == \
        ["1 test", "2 tests", "0 items", "3 indices"]
    assert [a("int"), a("list"), a("str"), a("unicode"), a("hour")] == ["an int", "a list", "a str", "a unicode", "an hour"]
    assert listing(["a", "b", "c"]) == "a, b and c"


def test_checker_feedback_is_grammatical() -> None:
    assert value(3, True).feedback == "expected an int, got a bool: True"
    assert value([1], [1, 2]).feedback == "1 extra (expected 1 item, got 2)"
    assert value(3, None).feedback == "expected an int, got None: None"


def test_the_summary_counts_hidden_tests_only_when_there_are_some(write) -> None:
    one = "  - {name: one, call: 'double(1)', expect: 2}"
    three = one + "\n  - {name: two, call: 'double(2)', expect: 4}\n  - {name: three, call: 'double(3)', expect: 6}"
    code = "def double(n):\n    return 2 * n\n"
    exercise, submission = write(PASSING.format(tests=one), code, exercise_id="double")
    assert "Score 1/1. The test passed." in render(grade(exercise, submission))
    exercise, submission = write(PASSING.format(tests=three), code, exercise_id="double")
    text = render(grade(exercise, submission))
    assert text.splitlines()[-1] == "Score 3/3. All 3 tests passed."
    exercise, submission = write(PASSING.format(tests=three.replace("6}", "6, hidden: true}")), code, exercise_id="double")
    assert "All 3 tests passed, the 1 hidden one included." in render(grade(exercise, submission))


def test_grader_start_never_wraps_its_command(tmp_path) -> None:
    from tests.conftest import run_cli

    target = tmp_path / "a_rather_long_folder_name_for_a_narrow_terminal" / "nq.py"
    target.parent.mkdir()
    done = run_cli("start", "n-queens-ii", target, env={"COLUMNS": "40"})
    assert done.returncode == 0
    assert f"  grader check n-queens-ii {target}" in done.stdout.splitlines()
    assert f"Wrote {target}. When it is ready, run:" in done.stdout.splitlines()
