"""The score that counts: one pure function from a student's graded submissions of one exercise (as their
reader is shown them), the course's late rule, released reviews, regrade answers and a TA's override to
what the exercise counts for and which submission counts. Every reader calls it (the pages, the API, the
gradebook and each of its exports, the LMS passback, `grader submit` through the API's `counted_score`),
so none of them keeps a copy that could drift. It imports nothing of the grader but `records`: the
server hands it plain numbers (an import contract holds it so)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from grader.records import record

COUNTS = ("latest", "best")  # which submission counts: the last one that counts at all, or the highest


@record
class Attempt:
    """One graded submission, as the count reads it."""

    submission: int  # its id; attempts are handed over in the order they were handed in
    tests: float  # the tests' score, as this reader is shown it (a student's: visible tests until released)
    most: float  # the exercise's points
    rubric: float | None = None  # its review's points, once released (None: none, or still pending)
    answered: float | None = None  # the score staff set answering a regrade request about this submission
    penalty: float = 0.0  # the late rule's percent off, 0..100
    too_late: bool = False  # handed in after the cut-off: counts for nothing


@record
class Count:
    """What one student's exercise counts for, and why."""

    submission: int | None  # the submission that counts (None: none does)
    score: float | None  # what the exercise counts for: the override, else that submission's score
    scores: dict[int, float | None]  # what each submission counts for on its own (None: after the cut-off)
    source: str  # where the score came from: override, regrade, tests+rubric, tests ("": nothing counts)
    override: float | None = None  # the TA's override applied, if any


def graded(attempt: Attempt) -> float:
    """A submission's score before the late rule. A regrade answer is staff's score for this submission and
    replaces what the tests and the rubric gave it; else the tests' score plus a released review's points,
    held between 0 and the exercise's points (a rubric adjusts the tests' score, never passes its worth)."""
    if attempt.answered is not None:
        return attempt.answered
    if not attempt.rubric:
        return attempt.tests
    return min(max(attempt.tests + attempt.rubric, 0.0), max(attempt.most, attempt.tests))


def submission_score(attempt: Attempt) -> float | None:
    """What one submission counts for: `graded`, its late penalty taken off; nothing after the cut-off.
    The late rule applies to a regrade answer too: an answer judges the work, not when it came."""
    return None if attempt.too_late else graded(attempt) * (1 - attempt.penalty / 100)


def count(attempts: Sequence[Attempt], counts: str = "latest", override: float | None = None) -> Count:
    """The one rule. Of the submissions that count at all (graded, before the cut-off), the latest, or with
    `counts: best` the highest (a tie goes to the later one); then a TA's override, when there is one,
    replaces its score. With no submission that counts, nothing counts, override or not."""
    if counts not in COUNTS:
        raise ValueError(f"counts is one of {', '.join(COUNTS)}, not {counts!r}")
    if override is not None and not math.isfinite(override):
        override = None  # stored before scores were checked: no gradebook could carry it
    scores = {attempt.submission: submission_score(attempt) for attempt in attempts}
    chosen: Attempt | None = None
    for attempt in attempts:
        score = scores[attempt.submission]
        if score is None:
            continue
        if chosen is None or counts == "latest" or score >= scores[chosen.submission]:  # type: ignore[operator]
            chosen = attempt
    if chosen is None:
        return Count(None, None, scores, "")
    if override is not None:
        return Count(chosen.submission, override, scores, "override", override)
    source = "regrade" if chosen.answered is not None else "tests+rubric" if chosen.rubric is not None else "tests"
    return Count(chosen.submission, scores[chosen.submission], scores, source)


def counted_for(count: Count, submission: int) -> float | None:
    """What one submission's line says it counts for: the exercise's score when it is the one that counts
    (an override included), else its own."""
    return count.score if submission == count.submission else count.scores.get(submission)
