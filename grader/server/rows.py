"""The rows of the server's database as the code reads them: a submission, an override, a review, a regrade
request and its messages, a change of score (the audit)."""

from __future__ import annotations

from grader.model import Report
from grader.records import record


@record
class Submission:
    id: int
    student: str
    exercise: str
    file: str
    sent_name: str
    sha256: str
    submitted_at: float
    status: str
    attempts: int
    exercise_digest: str | None
    report: Report | None
    error: str | None
    graded_at: float | None
    grading_seconds: float | None = None  # its last grading's wall-clock time on a worker, the queue's wait left out
    review_points: float | None = None  # its review's points once released to the student (grader.counting)
    answered: float | None = None  # the score staff set answering a regrade request about it (the latest)


@record
class Override:
    student: str
    exercise: str
    score: float
    reason: str
    by: str
    at: float


@record
class Review:
    """A TA's review of one submission: the rubric items ticked (id, points, description as reviewed) and
    comments on lines of that submission's code."""
    submission: int
    student: str
    exercise: str
    items: tuple[tuple[str, float, str], ...]
    comments: tuple[tuple[int, str], ...]
    summary: str
    points: float
    by: str
    at: float
    released_at: float | None = None


@record
class RegradeRequest:
    id: int
    submission: int
    student: str
    exercise: str
    about: str  # "test:NAME" or "rubric:ID"
    status: str  # open, answered
    at: float


@record
class Message:
    """One message of a regrade request's thread; `score`: the score staff set with it, if they changed it."""
    id: int
    request: int
    author: str
    staff: bool
    text: str
    at: float
    score: float | None = None


@record
class Change:
    """A row of the audit: a score changed (or a change to one was made: a review, its release)."""
    student: str
    exercise: str
    submission: int | None
    what: str  # regrade, override, review, release, late, request
    who: str
    at: float
    before: float | None
    after: float | None
    why: str
