"""The exercise's page, the page to work in, drawn for its route (pages.py) and for the answers of its forms
(work_routes.py): the statement of the caller's variant, their deadline and what the rules leave them, the
editor with their last saved draft (or the starter code, or the text a form sent), a run's report, their
submissions. Below the route modules, which import it and nothing of each other."""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from grader.records import record
from grader.server.assets import EDITOR
from grader.server.tokens import Caller
from grader.server.web import HEADERS, exercise_in_path, not_found, page, server_of


def history(request: Request, caller: Caller, student: str) -> list[dict[str, object]]:
    """A student's submissions, newest first, as `caller` may see them (views.shown: the one rule)."""
    from grader.server.views import shown_all

    server = server_of(request)
    return shown_all(server.state, server.rules, caller, server.state.list(student=student)[::-1], time.time(),
                     server.private)


def span(seconds: float) -> str:
    """A stretch of time as a person reads it, to its two largest units: 2 d 3 h, 9 d, 59 min 58 s."""
    seconds = max(0, int(seconds))
    parts = [(seconds // 86400, "d"), (seconds % 86400 // 3600, "h"), (seconds % 3600 // 60, "min"), (seconds % 60, "s")]
    first = next((i for i, (amount, _) in enumerate(parts) if amount), len(parts) - 1)
    return " ".join(f"{amount} {unit}" for amount, unit in parts[first:first + 2] if amount) or "0 s"


def exercise_facts(request: Request, caller: Caller, exercise_id: str) -> dict[str, Any]:
    """What the exercise's page says to `caller` now: its statement, their deadline (extensions included)
    and the time left, the late rule, and what the rate rule leaves them (staff: no limit)."""
    from grader.kinds import kind_of
    from grader.outputs.html.markdown import markdown_html
    from grader.server.views import allowance

    server = server_of(request)
    now = time.time()
    exercise = server.exercises.get(exercise_id, caller.student)[0]  # params: the caller's own variant
    rules = server.rules.of(exercise_id)
    lateness = server.rules.lateness(caller.student, exercise_id, now)
    deadline = lateness.deadline
    left = None if caller.staff else allowance(server.state, server.rules, caller.student, exercise_id, now)
    return {"id": exercise_id, "title": exercise.title, "statement": markdown_html(exercise.statement), "deadline": deadline,
            "remaining": span(deadline - now) if deadline is not None and deadline > now else None,
            "late": rules.late, "cutoff": server.rules.cutoff_of(caller.student, exercise_id), "too_late": lateness.too_late and not caller.staff, "allowance": left,
            "window": span(left.window) if left is not None else None,
            "frees_in": span(left.frees_at - now) if left is not None and left.frees_at is not None else None,
            "variant": exercise.variant, "starter": exercise.starter, "suffix": kind_of(exercise.kind).suffix}


@record
class Work:
    """What the exercise's page holds in its editor, when a form of it (work_routes.py) answers with the page:
    the text sent, the revision it was edited from, and what became of it."""

    code: str
    base: int  # the draft revision the text was edited from (0: none)
    run: dict[str, Any] | None = None  # a run of the visible tests: its report as the student sees it
    conflict: dict[str, Any] | None = None  # the draft another page saved meanwhile (drafts.Draft.shown)
    error: str = ""  # why the form's wish was refused


async def exercise_view(request: Request, caller: Caller, work: Work | None = None, status: int = 200,
                        headers: dict[str, str] | None = None) -> Response:
    """The page to work in: the statement of the caller's variant, the editor holding their last saved
    draft (else the starter code, or what a form of the page sent: `work`), their submissions."""
    from starlette.concurrency import run_in_threadpool

    from grader.errors import GraderError
    from grader.server import drafts
    from grader.server.exam_gate import view_refusal

    server = server_of(request)
    exercise_id = exercise_in_path(request)
    if exercise_id is None:
        return not_found(request, "No such exercise.")
    closed = await run_in_threadpool(view_refusal, server, caller, exercise_id, time.time())
    if closed is not None:  # an exam's exercise, before the student started the exam
        return page(request, "message.html.j2", closed.status, title="Part of an exam",
                    message=f"{closed.reason[0].upper()}{closed.reason[1:]}.")
    try:
        facts = await run_in_threadpool(exercise_facts, request, caller, exercise_id)
    except GraderError:
        return page(request, "message.html.j2", 503, title="Not available",
                    message="This exercise cannot be shown right now; staff can see why.")
    draft = await run_in_threadpool(drafts.latest, server.state, caller.student, exercise_id)
    if work is None:
        work = Work(draft.code, draft.revision) if draft is not None else Work(facts["starter"], 0)
    saved = draft.receipt() if draft is not None else None
    # A form's text that no draft holds (a run's, a refused hand-in's): the page saves it at once. Not after a
    # stale save: the student is shown both and chooses.
    unsaved = work.conflict is None and work.code != (draft.code if draft is not None else facts["starter"])
    mine = [s for s in history(request, caller, caller.student) if s["exercise"] == exercise_id]
    return page(request, "exercise.html.j2", status, {**HEADERS, **(headers or {})}, exercise=facts,
                submissions=mine, staff=caller.staff, work=work, saved=saved, unsaved=unsaved, editor=EDITOR)
