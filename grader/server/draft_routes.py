"""The API of drafts (drafts.py): `GET /api/drafts/{exercise}` reads the caller's own, `PUT` saves it and
answers with a receipt, 409 with the draft as it is when the save was edited from an older revision. A
signed-in page saves through the form `POST /exercises/{exercise}/draft` (work_routes.py): the same save,
by the same rules (exam_gate.py)."""

from __future__ import annotations

import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from grader.server import drafts, inputs
from grader.server.access import SIGNED_IN, route
from grader.server.exam_gate import address_of, after_save, closed_to
from grader.server.inputs import Refused
from grader.server.roles import Caller
from grader.server.web import Reply, exercise_in_path, refused, server_of

SHAPE = '{"code": the work as text, "base": the revision it was edited from (0 for none)}'


def _exercise(request: Request) -> str:
    exercise = exercise_in_path(request)
    if exercise is None:
        raise Refused(404, f"no exercise {request.path_params['exercise']!r} in this course")
    return exercise


async def get_draft(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    try:
        exercise = _exercise(request)
    except Refused as problem:
        return refused(problem)
    draft = await run_in_threadpool(drafts.latest, server.state, caller.student, exercise)
    shown = draft.shown() if draft else {"exercise": exercise, "revision": 0, "code": None}
    return Reply({**shown, "server_time": drafts.iso(time.time())})


async def put_draft(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    address = address_of(request)
    try:
        exercise = _exercise(request)
        body = inputs.json_body(await request.body(), SHAPE)
        code, base = drafts.code_of(body.get("code"), server.max_upload), drafts.base_of(body.get("base"))
        closed = await run_in_threadpool(closed_to, server, caller, exercise, time.time(), address)
        if closed is not None:
            raise closed
    except Refused as problem:
        return refused(problem)
    try:
        draft = await run_in_threadpool(drafts.save, server.state, caller.student, exercise, code, base)
    except drafts.Stale as stale:
        current = stale.current.shown() if stale.current else {"exercise": exercise, "revision": 0, "code": None}
        return Reply({"error": "saved meanwhile from another page: this is the draft as the server holds it",
                      "current": current}, status_code=409)
    answer: dict[str, Any] = {"receipt": draft.receipt(), "server_time": drafts.iso(time.time())}
    exam = await run_in_threadpool(after_save, server, caller, draft, address)
    if exam:
        answer["exam"] = exam
    return Reply(answer)


def draft_routes() -> list[BaseRoute]:
    return [route("/api/drafts/{exercise}", get_draft, ["GET"], SIGNED_IN),
            route("/api/drafts/{exercise}", put_draft, ["PUT"], SIGNED_IN)]
