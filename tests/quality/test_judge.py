"""A spec's `quality:` on one file, with the pinned ruff: categories, caps, the starter's issues, bounds."""

from __future__ import annotations

import pytest

from grader.quality.data import Category, Mode, QualitySpec
from grader.quality.judge import LISTED_MOST, check_quality
from grader.quality.ruff import SOURCE_MOST, run_ruff

BUGS = Category("bugbear", ("B",), Mode.GRADED, penalty=1.0, cap=3.0)
STYLE = Category("style", ("E", "W"), Mode.FEEDBACK)
NAMING = Category("naming", ("N8",), Mode.GRADED, penalty=0.5, cap=2.0)
FIVE_B006 = "".join(f"def f{n}(x=[]):\n    return x\n\n\n" for n in range(5))


def test_a_category_takes_its_penalty_per_issue_up_to_its_cap_and_says_so() -> None:
    quality = check_quality(QualitySpec((BUGS, STYLE)), FIVE_B006 + "y = 1 \n", "", 10.0)
    bugbear, style = quality.categories
    assert (bugbear.counted, bugbear.deduction, bugbear.capped) == (5, 3.0, True)
    assert (style.counted, style.deduction) == (1, 0.0)  # feedback: shown, nothing taken
    assert quality.deduction == 3.0 and not quality.capped
    assert [i.code for i in quality.issues] == ["B006"] * 5 + ["W291"]


@pytest.mark.parametrize(("cap", "percent", "taken"), [(2.5, None, 2.5), (None, 10.0, 1.0), (2.5, 10.0, 1.0)],
                         ids=["points", "share of the exercise", "the smaller of both"])
def test_the_exercise_cap_holds_every_category_together(cap: float | None, percent: float | None, taken: float) -> None:
    quality = check_quality(QualitySpec((BUGS, NAMING), cap, percent), FIVE_B006 + "def F(X):\n    return X\n", "", 10.0)
    assert [c.deduction for c in quality.categories] == [3.0, 1.0]
    assert quality.deduction == taken and quality.capped


def test_issues_the_starter_has_are_shown_but_never_counted_matched_by_rule_and_code_not_line() -> None:
    starter = "def Solve(N):\n    pass\n"
    source = "import math\n\n\nclass Board:\n    def Solve(N):\n        return math.pi\n\n\ndef Solve(N):\n    return 1\n"
    quality = check_quality(QualitySpec((NAMING,)), source, starter, 10.0)
    kept = [(i.line, i.code, i.in_starter) for i in quality.issues]
    # The starter's `def Solve(N):` (N802, N803), moved down and into a class, is the starter's (a method's
    # first argument not `self`, N805, is new); the second `def Solve(N):` is the student's own and counts.
    assert kept == [(5, "N802", True), (5, "N803", True), (5, "N805", False), (9, "N802", False), (9, "N803", False)]
    assert quality.categories[0].counted == 3 and quality.deduction == 1.5


def test_a_rule_goes_to_its_most_specific_category_and_an_off_category_is_never_shown() -> None:
    spec = QualitySpec((Category("unused", ("F401",), Mode.GRADED, penalty=1.0),
                        Category("pyflakes", ("F",), Mode.FEEDBACK), Category("long", ("E501",), Mode.OFF),
                        STYLE))
    quality = check_quality(spec, "import os\nx = y\n" + "z = '" + "a" * 100 + "'\n", "", 10.0)
    assert [(i.code, i.category) for i in quality.issues] == [("F401", "unused"), ("F821", "pyflakes")]
    assert [c.name for c in quality.categories] == ["unused", "pyflakes", "style"]


def test_noqa_comments_hide_nothing() -> None:
    quality = check_quality(QualitySpec((BUGS,)), "# ruff: noqa\ndef f(x=[]):  # noqa: B006\n    return x\n", "", 1.0)
    assert quality.deduction == 1.0


def test_two_checks_of_one_file_are_equal() -> None:
    spec = QualitySpec((BUGS, NAMING, STYLE), cap_percent=50.0)
    assert check_quality(spec, FIVE_B006, "", 4.0) == check_quality(spec, FIVE_B006, "", 4.0)


# ---------------------------------------------------------------- hostile files: bounded, with a reason
@pytest.mark.parametrize(("spec", "taken"), [(QualitySpec((STYLE,)), 0.0), (QualitySpec((BUGS, NAMING)), 5.0),
                                             (QualitySpec((BUGS, NAMING), cap_percent=10.0), 1.0)],
                         ids=["feedback only", "every category's cap", "the exercise's cap"])
def test_a_file_over_the_size_limit_is_not_checked_says_why_and_takes_the_most(spec: QualitySpec, taken: float) -> None:
    # Padding a file past the limit must not be a way out of the deductions.
    quality = check_quality(spec, "x = 1\n" * (SOURCE_MOST // 6 + 1), "", 10.0)
    assert "over 1 MiB" in quality.not_checked and not quality.issues
    assert quality.deduction == taken


def test_a_hundred_thousand_issues_are_counted_but_a_report_lists_a_bounded_few() -> None:
    source = "x=1;y=2;z=3\n" * 50_000  # two E702 (statements after a semicolon) a line
    quality = check_quality(QualitySpec((Category("style", ("E7",), Mode.GRADED, 0.01, 5.0),)), source, "", 9.0)
    found = quality.categories[0].counted
    assert found == 100_000 or (quality.note and found > LISTED_MOST)  # all, or what the bounded output held
    assert len(quality.issues) == LISTED_MOST and quality.unlisted == found - LISTED_MOST
    assert quality.deduction == 5.0 and quality.categories[0].capped


def test_ruff_past_its_wall_clock_limit_gives_a_reason_not_a_hang() -> None:
    # Starting a Python launcher and ruff on half a megabyte takes far more than a millisecond anywhere.
    found = run_ruff("x = 1\n" * 80_000, ("E",), wall=0.001)
    assert found.failure.startswith("ruff took over 0.001 s") and not found.found


def test_a_deeply_nested_file_gets_an_answer_or_a_reason() -> None:
    deep = "x = " + "-" * 50_000 + "1\n"  # parses in Python; a recursive linter's stack is another matter
    quality = check_quality(QualitySpec((STYLE, BUGS)), deep, "", 1.0)
    assert quality.not_checked.startswith("ruff failed") and quality.deduction == 3.0 or quality.deduction == 0
