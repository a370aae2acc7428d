"""grader.counting, the one rule of the score that counts, as a table: which submission counts and for what,
given the late rule, released reviews, regrade answers and overrides."""

from __future__ import annotations

import math

import pytest

from grader.counting import Attempt, count, counted_for, graded, submission_score

MOST = 4.0


def attempt(number: int, tests: float, **more: object) -> Attempt:
    return Attempt(number, tests, MOST, **more)  # type: ignore[arg-type]


@pytest.mark.parametrize(("attempts", "counts", "override", "expected"), [
    ([attempt(1, 3)], "latest", None, (1, 3.0, "tests")),
    ([attempt(1, 4), attempt(2, 1)], "latest", None, (2, 1.0, "tests")),
    ([attempt(1, 4), attempt(2, 1)], "best", None, (1, 4.0, "tests")),
    ([attempt(1, 2), attempt(2, 2)], "best", None, (2, 2.0, "tests")),  # a tie: the later one
    ([attempt(1, 4, penalty=20.0)], "latest", None, (1, 3.2, "tests")),
    ([attempt(1, 2), attempt(2, 4, too_late=True)], "latest", None, (1, 2.0, "tests")),  # after the cut-off
    ([attempt(1, 4, too_late=True)], "latest", 3.0, (None, None, "")),  # nothing counts: no override either
    ([attempt(1, 3, rubric=-1.0)], "latest", None, (1, 2.0, "tests+rubric")),
    ([attempt(1, 4, rubric=2.0)], "latest", None, (1, 4.0, "tests+rubric")),  # never past the exercise's worth
    ([attempt(1, 1, rubric=-3.0)], "latest", None, (1, 0.0, "tests+rubric")),  # nor below nothing
    ([attempt(1, 0, rubric=0.0)], "latest", None, (1, 0.0, "tests+rubric")),  # released, worth nothing
    ([attempt(1, 3, rubric=-1.0, answered=3.5)], "latest", None, (1, 3.5, "regrade")),  # the answer replaces both
    ([attempt(1, 4, answered=4.0, penalty=50.0)], "latest", None, (1, 2.0, "regrade")),  # the late rule stays
    ([attempt(1, 3, answered=1.0), attempt(2, 4)], "latest", None, (2, 4.0, "tests")),  # an old one's answer
    ([attempt(1, 1, answered=4.0), attempt(2, 3)], "best", None, (1, 4.0, "regrade")),  # lifts it: it counts
    ([attempt(1, 3)], "latest", 1.5, (1, 1.5, "override")),
    ([attempt(1, 3, answered=2.0)], "latest", 1.0, (1, 1.0, "override")),  # the override has the last word
    ([attempt(1, 3)], "latest", math.nan, (1, 3.0, "tests")),  # a stored NaN is no score: ignored
    ([attempt(1, 3)], "latest", math.inf, (1, 3.0, "tests")),
    ([], "latest", 2.0, (None, None, "")),
], ids=["one", "latest", "best", "best-tie-later", "late", "too-late-skipped", "all-too-late", "rubric",
        "rubric-capped", "rubric-floored", "rubric-zero", "answer-replaces", "answer-then-late", "old-answer",
        "answer-best", "override", "override-over-answer", "nan-override", "inf-override", "nothing"])
def test_the_rule(attempts: list[Attempt], counts: str, override: float | None,
                  expected: tuple[int | None, float | None, str]) -> None:
    found = count(attempts, counts, override)
    assert (found.submission, found.score, found.source) == pytest.approx(expected)


def test_each_line_says_what_its_submission_counts_for_and_the_counted_one_the_exercises_score() -> None:
    found = count([attempt(1, 3, answered=1.0), attempt(2, 4, penalty=10.0), attempt(3, 2, too_late=True)],
                  "latest", 2.5)
    assert found.scores == {1: 1.0, 2: pytest.approx(3.6), 3: None}
    assert [counted_for(found, n) for n in (1, 2, 3, 4)] == [1.0, 2.5, None, None]


def test_a_submissions_score_before_and_after_the_late_rule() -> None:
    assert graded(attempt(1, 3, rubric=1.0, penalty=50.0)) == 4.0
    assert submission_score(attempt(1, 3, rubric=1.0, penalty=50.0)) == 2.0
    assert submission_score(attempt(1, 3, too_late=True)) is None


@pytest.mark.parametrize("counts", ["first", "", "LATEST", "best "])
def test_an_unknown_rule_is_refused_by_name(counts: str) -> None:
    with pytest.raises(ValueError, match="counts is one of latest, best"):
        count([attempt(1, 1)], counts)
