"""A regrade after a spec or a reference changed: only the submissions graded under another version of their
exercise go back to the queue, as a batch grades again only what changed. A TA's override is kept apart
from the reports (State.overrides), so it survives and the gradebook shows it as an override."""

from __future__ import annotations

from grader.errors import GraderError
from grader.server.queue import Exercises
from grader.server.state import State


def regrade(state: State, exercises: Exercises, exercise_id: str | None = None, everything: bool = False) -> list[int]:
    """The ids queued again: those whose exercise changed since they were graded (all of them: `everything`)."""
    exercises.forget()  # read every spec and reference again
    digests: dict[tuple[str, str], str | None] = {}
    chosen = []
    for submission in state.list(exercise=exercise_id):
        if submission.status not in ("done", "error"):
            continue  # queued or running: graded with what is there now anyway
        key = (submission.exercise, submission.student)  # params: each student's variant has its digest
        if key not in digests:
            try:
                digests[key] = exercises.get(*key)[1]
            except GraderError:
                digests[key] = None  # a broken spec: its grades stay as they are
        current = digests[key]
        if current is not None and (everything or submission.exercise_digest != current):
            chosen.append(submission.id)
    state.regrade(chosen)
    return chosen
