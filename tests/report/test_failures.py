"""Failures of tests that ran: hidden ones in one line by kind, skipped ones with their reason, wrong
answers as expected over got with the first difference marked, and timeouts in words."""

from __future__ import annotations

import re
import time
from pathlib import Path

from grader.grading import GradingRequest, Pace, grade
from tests.report.conftest import MEAN, render

FAILS_HIDDEN = """def mean(xs):
    if len(xs) == 1:
        return xs[5]
    if xs[0] < 0 or xs[0] == 10:
        return 0.0
    return sum(xs) / len(xs)
"""


def test_hidden_failures_are_one_line_by_kind(write) -> None:
    exercise, submission = write(MEAN, FAILS_HIDDEN)
    text = render(grade(exercise, submission, GradingRequest(Pace.FAIL_FAST)))
    assert "3 hidden tests did not pass: wrong answer (2); IndexError" in text
    assert text.count("╭") == 0  # no panel for a hidden test
    assert "Score 2/6. 3 of 6 tests did not pass (3 of them hidden); 1 test was not run." in text


def test_a_skipped_test_says_why_in_the_table(write) -> None:
    exercise, submission = write(MEAN, FAILS_HIDDEN)
    text = render(grade(exercise, submission, GradingRequest(Pace.FAIL_FAST)))
    row = next(line for line in text.splitlines() if "a long list" in line)
    assert "not run" in row and "a smaller test failed first" in row
    assert "grader check --all runs the tests marked not run." in text


LONG = """title: Squares
kind: function
entry: squares
statement: The squares of 0 .. n-1.
tests:
  - {name: five hundred, call: "squares(500)"}
"""


def test_a_long_list_shows_the_region_of_its_first_difference(write) -> None:
    code = "def squares(n):\n    return [i * i if i != 229 else 0 for i in range(n)]\n"
    exercise, submission = write(LONG, code, exercise_id="squares")
    accepted = exercise.reference_dir / "accepted"
    accepted.mkdir(parents=True)
    (accepted / "squares.py").write_text("def squares(n):\n    return [i * i for i in range(n)]\n")
    report = grade(exercise, submission)
    text = render(report)  # its input comes with the outcome
    assert "item 229 differs: expected 52441, got 0" in text
    expected = next(line for line in text.splitlines() if "│ expected" in line)
    got = next(line for line in text.splitlines() if "│ got" in line)
    caret = text.splitlines()[text.splitlines().index(got) + 1]
    assert "52441" in expected and "52441" not in got and ", 0, 52900" in got
    assert expected.index("52441") == got.index("0, 52900") == caret.index("^")
    assert "…" in expected and "[0, 1, 4" not in expected  # not its first items
    assert "input: squares(500)" in text


SUM_PROGRAM = """title: Sums
kind: program
statement: Read n, then n numbers; print their running sums, one per line.
tests:
  - name: three numbers
    stdin: "3\\n1 2 3\\n"
    expect: "1\\n3 total\\n6 total\\n"
"""


def test_an_output_difference_is_expected_over_got_with_whitespace_and_the_input(write) -> None:
    code = ("n = int(input())\ntotal = 0\nfor i, x in enumerate(input().split()):\n"
            "    total += int(x)\n    print(total if i == 0 else f'{total}  total')\n")
    exercise, submission = write(SUM_PROGRAM, code, exercise_id="sums")
    text = render(grade(exercise, submission))
    assert "--- expected" not in text and "@@" not in text
    lines = text.splitlines()
    assert "input: (what the program reads)" in text and "│   1 2 3" in text
    assert "│ line 1           1" in text
    expected = next(line for line in lines if "line 2 expected" in line)
    got = lines[lines.index(expected) + 1]
    caret = lines[lines.index(expected) + 2]
    assert expected.endswith("3·total") or "3·total " in expected
    assert "3··total" in got
    assert caret.index("^") == got.index("··") + 1
    assert "line 3 expected  6·total" in text and "3··total" in text


def test_a_timeout_says_what_happened_and_the_tests_left_are_not_run(write) -> None:
    exercise, submission = write(MEAN, "def mean(xs):\n    while True:\n        pass\n")
    started = time.monotonic()
    report = grade(exercise, submission, GradingRequest(Pace.FAIL_FAST))
    text = render(report)
    ran = [o for o in report.outcomes if o.verdict != "skipped"]
    assert [o.verdict for o in ran] == ["timeout"]
    assert re.search(r"time limit exceeded: stopped after \d\.\d\d s of CPU; the limit is 0\.50 s", text)
    assert text.count("a test before it ran out of time") == 5
    assert "1 of 6 tests did not pass; 5 tests were not run." in text
    assert time.monotonic() - started < 30  # not one limit per test: a loaded machine is slow, not 6x


def test_run_all_and_a_batch_run_every_test_after_a_timeout(write) -> None:
    exercise, submission = write(MEAN.replace("  - {name: three", "  - {name: slow, call: 'mean(None)', expect: 0}\n"
                                              "  - {name: three"),
                                 "def mean(xs):\n    while xs is None:\n        pass\n    return sum(xs) / len(xs)\n")
    for report in (grade(exercise, submission, GradingRequest(Pace.EVERY_TEST)), grade(exercise, submission)):
        assert [o.verdict for o in report.outcomes].count("timeout") == 1
        assert not any("ran out of time" in o.feedback for o in report.outcomes)


def test_a_difference_is_drawn_in_the_class_pages_colours_not_green_and_red() -> None:
    from rich.color import Color

    from grader.outputs.terminal import DIFF_STYLE

    html = (Path(__file__).parents[2] / "grader" / "outputs" / "html" / "batch_base.html.j2").read_text()
    assert "pre .del, .side .expected h4 { color: #0b4f9c; }" in html  # the class page: blue expected
    assert "pre .add, .side .got h4 { color: #a04800; }" in html  # orange got
    expected, got = (Color.parse(DIFF_STYLE[side]).get_truecolor() for side in ("expected", "got"))
    assert expected.blue > max(expected.red, expected.green)  # blue, as on the page
    assert got.red > got.green > got.blue  # orange, as on the page
