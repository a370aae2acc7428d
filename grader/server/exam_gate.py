"""What an exam closes, in one place: a save of an exam's work only while the student's exam runs (from its
rooms' addresses), no hand-in of an exam's exercise but the one its end makes from the last save, no run of
the visible tests while the exam holds its feedback back, and no page of its exercises before the student
starts it. Staff are never refused (a test run they started is a student's run). The rules themselves are
pure functions in exams.py; this reads the server's exams and starts for them."""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import Request

from grader.server import exams, exams_store
from grader.server.drafts import Draft, iso
from grader.server.inputs import Refused
from grader.server.roles import Caller
from grader.server.web import Server


def closed_to(server: Server, caller: Caller, exercise: str, now: float,
              address: str | None = None) -> Refused | None:
    """Why a save of this exercise's draft is refused now, or None: the one place a save's rules live. An
    exam's exercise is saved only between the student's start and their end, by the server's clock, and
    from the exam's address ranges; staff who have not started a test run are never refused."""
    exam = server.rules.exams.of_exercise(exercise)
    if exam is None:
        return None
    begun = exams_store.started(server.state, exam.id, caller.student)
    if caller.staff and begun is None:
        return None
    reason = exams.save_refusal(exam, caller.student, begun.started_at if begun else None, now) or \
        (None if begun is not None and begun.test_run else exams.address_refusal(exam, address))
    if reason is not None and begun is not None:
        exams_store.contact(server.state, exam, begun, now, address, "refused", {"exercise": exercise, "why": reason})
    return Refused(403, reason) if reason else None


def address_of(request: Request) -> str | None:
    """The client's address as the server's socket sees it (a proxy's own, behind one)."""
    return request.client.host if request.client else None


def after_save(server: Server, caller: Caller, draft: Draft, address: str | None) -> dict[str, Any]:
    """A save of an exam's work, in its log; and the time left, which the page's timer takes again."""
    exam = server.rules.exams.of_exercise(draft.exercise)
    begun = exams_store.started(server.state, exam.id, caller.student) if exam else None
    if exam is None or begun is None:
        return {}
    now = time.time()
    exams_store.contact(server.state, exam, begun, now, address, "save", {**draft.receipt()})
    return {"id": exam.id, "seconds_left": exams.seconds_left(exam, caller.student, begun.started_at, now),
            "ends_at": iso(exams.ends_at(exam, caller.student, begun.started_at))}


def hand_in_refusal(server: Server, caller: Caller, exercise: str) -> Refused | None:
    """An exam's exercise is handed in by the exam's end, from the last save: never by an upload, which
    could otherwise count over it (a course counting the best) or outlast the student's time."""
    exam = server.rules.exams.of_exercise(exercise)
    if exam is None or caller.staff:
        return None
    return Refused(403, f"{exercise} is part of the exam {exam.id}: your last save is handed in when your "
                        "time ends, and nothing is handed in otherwise")


def run_refusal(server: Server, caller: Caller, exercise: str, now: float,
                address: str | None = None) -> Refused | None:
    """A run of the visible tests of an exam's exercise: once the results show, as any exercise's; before,
    only while the student's exam runs and only when the exam shows the visible tests (a run is feedback)."""
    exam = server.rules.exams.of_exercise(exercise)
    if exam is None or caller.staff or exams.feedback_now(exam, now) == "all":
        return None
    if exams.feedback_now(exam, now) == "none":
        return Refused(403, f"the exam {exam.id} shows no test results until its results are out")
    return closed_to(server, caller, exercise, now, address)


def view_refusal(server: Server, caller: Caller, exercise: str, now: float) -> Refused | None:
    """An exam's exercise is shown to a student once they have started the exam (or its results are out)."""
    exam = server.rules.exams.of_exercise(exercise)
    if exam is None or caller.staff or exams.feedback_now(exam, now) == "all":
        return None
    if exams_store.started(server.state, exam.id, caller.student) is None:
        return Refused(403, f"{exercise} is part of the exam {exam.id}: start it from /exams/{exam.id}")
    return None
