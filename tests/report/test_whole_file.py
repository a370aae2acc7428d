"""A problem that stops the whole file is told once, in one panel; every test reads "not run"."""

from __future__ import annotations

from grader.grading import grade
from tests.report.conftest import MEAN, render


def test_a_syntax_error_is_one_panel_with_the_line_and_a_caret(write) -> None:
    exercise, submission = write(MEAN, "def mean(xs)\n    return sum(xs) / len(xs)\n")
    text = render(grade(exercise, submission))
    assert "╭─ The file does not parse: no test was run " in text
    assert "│ line 1: expected ':'" in text
    lines = text.splitlines()
    code = next(i for i, line in enumerate(lines) if "    def mean(xs)" in line)
    assert lines[code + 1].index("^") == lines[code].index("def mean(xs)") + len("def mean(xs)")
    assert text.count("expected ':'") == 1 and text.count("╭") == 1
    assert [line.split("│")[2].strip() for line in lines if line[:1].isdigit()] == ["not run"] * 6
    assert "None of the 6 tests could run: fix the problem above first." in text


def test_a_missing_function_is_said_once_for_all_tests(write) -> None:
    exercise, submission = write(MEAN, "def average(xs):\n    return 0\n")
    text = render(grade(exercise, submission))
    assert "╭─ The file stopped while loading: no test was run " in text
    assert text.count("the file defines no mean") == 1
    assert text.count("not run") == 6


def test_a_failed_import_names_the_students_own_file(write) -> None:
    exercise, submission = write(MEAN, "import numpyy\n\ndef mean(xs):\n    return 0\n", name="my_mean.py")
    text = render(grade(exercise, submission))
    assert text.count("No module named 'numpyy'") == 1
    assert 'File "my_mean.py", line 1, in <module>' in text
    assert "submission.py" not in text


def test_a_broken_rule_is_one_panel(write) -> None:
    spec = MEAN.replace("limits:", "forbid: [{name: statistics, message: compute the mean yourself}]\nlimits:")
    exercise, submission = write(spec, "import statistics\n\ndef mean(xs):\n    return statistics.mean(xs)\n")
    text = render(grade(exercise, submission))
    assert "╭─ The file breaks a rule of the exercise: no test was run " in text
    assert text.count("compute the mean yourself") == 1
    assert text.count("not run") == 6
