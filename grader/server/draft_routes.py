"""The API of drafts (drafts.py): `GET /api/drafts/{exercise}` reads the caller's own, `PUT` saves it and
answers with a receipt, 409 with the draft as it is when the save was edited from an older revision."""

from __future__ import annotations

import time

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from grader.server import drafts, inputs
from grader.server.access import SIGNED_IN, route
from grader.server.inputs import Refused
from grader.server.roles import Caller
from grader.server.web import Reply, Server, refused, server_of

SHAPE = '{"code": the work as text, "base": the revision it was edited from (0 for none)}'


def closed_to(server: Server, caller: Caller, exercise: str, now: float) -> Refused | None:
    """Why a save of this exercise's draft is refused now, or None: the one place a save's rules live."""
    return None


def _exercise(server: Server, request: Request) -> str:
    exercise = request.path_params["exercise"]
    if exercise not in server.exercises.ids():
        raise Refused(404, f"no exercise {exercise!r} in this course")
    return str(exercise)


async def get_draft(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    try:
        exercise = _exercise(server, request)
    except Refused as problem:
        return refused(problem)
    draft = await run_in_threadpool(drafts.latest, server.state, caller.student, exercise)
    shown = draft.shown() if draft else {"exercise": exercise, "revision": 0, "code": None}
    return Reply({**shown, "server_time": drafts.iso(time.time())})


async def put_draft(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    try:
        exercise = _exercise(server, request)
        body = inputs.json_body(await request.body(), SHAPE)
        code, base = drafts.code_of(body.get("code"), server.max_upload), drafts.base_of(body.get("base"))
        closed = closed_to(server, caller, exercise, time.time())
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
    return Reply({"receipt": draft.receipt(), "server_time": drafts.iso(time.time())})


def draft_routes() -> list[BaseRoute]:
    return [route("/api/drafts/{exercise}", get_draft, ["GET"], SIGNED_IN),
            route("/api/drafts/{exercise}", put_draft, ["PUT"], SIGNED_IN)]
