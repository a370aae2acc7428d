"""`grader validate` through the real CLI: it passes a sound exercise, and fails each unsound one with a reason."""

from __future__ import annotations

import re

from tests.authoring.conftest import BURN, SQUARES, CourseFolder, flat
from tests.conftest import EXERCISES, Completed, run_cli


def validate(course: CourseFolder, *ids: str) -> Completed:
    return run_cli("validate", "--exercises", course.exercises, *ids)


def test_a_sound_exercise_is_valid_and_shows_its_references_and_limits(squares: CourseFolder) -> None:
    result = validate(squares)
    text = flat(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    for row in ("plain.py accepted passed ... ok", "fast.py accepted passed ... ok",
                "off_by_one.py wrong_answer wrong_answer WWW ok", "forever.py timeout timeout ..T ok"):
        assert row in text, text
    # the big test's row: slowest accepted, the limit (the floor), the too-slow one stopped at 1.5 x 1.2 x the limit
    row = re.search(r"square\(10\*\*6\) ([\d.]+) s \w+\.py 0\.30 s floor ≥ ([\d.]+) s forever\.py ≥ ([\d.]+)×", text)
    assert row, text
    assert float(row.group(1)) < 0.1 and float(row.group(2)) >= 0.45 and float(row.group(3)) >= 1.5
    assert "✓ every exercise is valid (1 of 1" in text


def test_a_wrong_reference_that_passes_fails_validation(squares: CourseFolder) -> None:
    squares.reference("squares", "abs_value.py", "def square(n):\n    return 0 if n == 7 else n * n\n",
                      "wrong_answer")
    result = validate(squares)
    assert result.returncode == 1
    assert ("✗ wrong_answer/abs_value.py: expected wrong_answer on at least one test, but it passes every test: "
            "no test catches this mistake; add a test that does") in result.stdout


def test_a_too_slow_reference_that_passes_means_the_limit_stops_nothing(squares: CourseFolder) -> None:
    squares.reference("squares", "not_slow.py", "def square(n):\n    return n * n\n", "timeout")
    result = validate(squares)
    assert result.returncode == 1
    assert ("✗ timeout/not_slow.py: expected timeout on at least one test, but the limit does not stop it: "
            "it passes every test") in result.stdout


def test_a_limit_that_does_not_separate_slow_from_accepted_by_the_margin_fails(course: CourseFolder) -> None:
    # Calibrated: limit = 3 x 0.2 s = 0.6 s. The too-slow reference takes 0.75 s: over the limit, but under
    # 1.5 x the limit, so a busy machine could let it pass or fail a correct submission as slow.
    course.write("squares", SQUARES.replace("calibration: {floor: 0.3}", "calibration: {floor: 0.1, multiplier: 3}"))
    course.reference("squares", "plain.py", BURN.format(seconds=0.2))
    course.reference("squares", "a_bit_slower.py", BURN.format(seconds=0.75), "timeout")
    result = validate(course)
    text = flat(result.stdout)
    assert result.returncode == 1, text
    match = re.search(r"✗ test 'square\(3\)': the limit separates nothing: timeout/a_bit_slower\.py took ([\d.]+) s, "
                      r"over the ([\d.]+) s limit but under 1\.5 x the limit \(([\d.]+) s\); lower the limit or make "
                      r"the test bigger", result.stdout)
    assert match, text
    took, limit = float(match.group(1)), float(match.group(2))
    assert 0.6 <= limit <= 0.7 and limit < took < 1.5 * limit


def test_a_wrong_written_expectation_fails_and_names_both_values(squares: CourseFolder) -> None:
    squares.write("squares", SQUARES.replace("expect: 9", "expect: 10"))
    result = validate(squares, "squares")
    assert result.returncode == 1
    assert ("✗ test 'square(3)' (line 11): the written expect is wrong: the spec says 10 but the reference "
            "accepted/plain.py gives 9 (expected 10, got 9); fix the spec, or leave 'expect' out to use the "
            "reference") in result.stdout
    assert "✗ accepted/plain.py: wrong_answer on 'square(3)': expected 10, got 9" in result.stdout


def test_a_wrong_predict_answer_fails(course: CourseFolder) -> None:
    course.write("guess", 'title: Guess\nkind: predict\nstatement: What does it print?\n'
                          'snippet: |\n  print(2 + 2)\ntests:\n  - name: Output\n    expect: "5"\n')
    result = validate(course)
    assert result.returncode == 1
    assert ("✗ test 'Output' (line 7): the predict answer is wrong: the spec says '5' but the snippet prints "
            "'4\\n' (line 1 differs)") in result.stdout


def test_predict_answers_in_verdict_folders_are_checked(course: CourseFolder) -> None:
    course.write("guess", 'title: Guess\nkind: predict\nstatement: What does it print?\n'
                          'snippet: |\n  print(2 + 2)\ntests:\n  - name: Output\n')
    course.reference("guess", "four.txt", "4\n")
    course.reference("guess", "five.txt", "5\n", "wrong_answer")
    course.reference("guess", "four_again.txt", "4\n", "wrong_answer")
    result = validate(course)
    assert result.returncode == 1
    assert "✗ wrong_answer/four_again.txt: expected wrong_answer on at least one test" in result.stdout
    assert "✗ wrong_answer/five.txt" not in result.stdout


def test_an_accepted_reference_that_fails_a_test_is_named_with_the_test(squares: CourseFolder) -> None:
    squares.reference("squares", "zero_division.py", "def square(n):\n    return 1 // (n - 3) and n * n\n")
    (squares.root / "reference" / "squares" / "timeout" / "forever.py").unlink()  # not timed: the default 2 s
    result = validate(squares)
    assert result.returncode == 1
    assert "✗ accepted/zero_division.py: runtime_error on 'square(3)': ZeroDivisionError: integer division or modulo by zero" \
        in result.stdout


def test_a_reference_worse_than_its_folder_fails(squares: CourseFolder) -> None:
    squares.reference("squares", "loops.py", "def square(n):\n    while n > 100:\n        pass\n    return n\n",
                      "wrong_answer")
    result = validate(squares)
    assert result.returncode == 1
    assert "✗ wrong_answer/loops.py: worse than wrong_answer: timeout on 'square(10**6)'" in result.stdout


def test_an_unknown_verdict_folder_is_a_failure_with_a_suggestion(squares: CourseFolder) -> None:
    squares.reference("squares", "x.py", "def square(n):\n    return 0\n", "wrong_anwser")
    result = validate(squares)
    assert result.returncode == 1
    assert "unknown verdict folder 'wrong_anwser' (did you mean 'wrong_answer'?)" in result.stdout


def test_spec_errors_stop_validation_with_file_line_column_and_exit_3(squares: CourseFolder) -> None:
    squares.write("broken", SQUARES.replace("    expect: 9", "    expcet: 9").replace("{floor: 0.3}",
                                                                                    "{flor: 0.3, multiplier: 0}"))
    result = validate(squares)
    assert result.returncode == 3
    broken = squares.exercises / "broken.yaml"
    assert f"{broken}:9:15: unknown key 'flor' in calibration (did you mean 'floor'?)" in result.stderr
    assert f"{broken}:9:38: calibration: multiplier must be a number of times at least 1 and at most 1000, not 0.0" in result.stderr
    assert f"{broken}:13:5: unknown key 'expcet' in a test (did you mean 'expect'?)" in result.stderr
    assert result.stdout == ""  # nothing ran


def test_an_exercise_with_no_accepted_reference_fails(course: CourseFolder) -> None:
    course.write("squares", SQUARES)
    result = validate(course)
    assert result.returncode == 1
    assert "✗ no accepted reference in" in result.stdout


def test_an_unknown_exercise_is_a_usage_error(squares: CourseFolder) -> None:
    result = validate(squares, "sqaures")
    assert result.returncode == 2
    assert "did you mean 'squares'?" in result.stderr


def test_every_shipped_exercise_is_valid() -> None:
    result = run_cli("validate", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    ids = sorted(p.stem for p in EXERCISES.glob("*.yaml"))
    assert f"✓ every exercise is valid ({len(ids)} of {len(ids)}" in result.stdout
    for exercise_id in ids:
        assert f"✓ {exercise_id} is valid" in result.stdout
