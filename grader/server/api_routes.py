"""The JSON API's own routes (grader/schemas/server-api.schema.json): submissions, the gradebook, regrades,
overrides, health. Who may call each is declared in the route table (app.py), never checked here."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from grader.errors import GraderError
from grader.server import inputs
from grader.server.actions import accept_upload, override_of
from grader.server.health import health_routes
from grader.server.inputs import Refused
from grader.server.state import STATUSES
from grader.server.views import GRADEBOOK_FORMATS, ROSTER_FORMATS, build_gradebook, gradebook_text, shown_all
from grader.server.access import ANYONE, INSTRUCTOR, SIGNED_IN, STAFF_ONLY, route
from grader.server.roles import Caller
from grader.server.web import Reply, Server, error, refused, server_of

WAIT_MOST = 60.0  # seconds a GET ?wait=S may wait



async def post_submission(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    accepted = await accept_upload(server, caller, request)
    if accepted.refusal is not None:
        return accepted.refusal
    return Reply({"id": accepted.number, "status": "queued"}, status_code=202,
                 headers={"Location": f"/api/submissions/{accepted.number}"})


async def get_submission(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    number = inputs.submission_id(request.path_params["number"])
    try:
        wait = inputs.seconds(request.query_params.get("wait"), WAIT_MOST)
    except Refused as problem:
        return refused(problem)
    server.changes.loop = asyncio.get_running_loop()  # before the read: no change after it goes unheard
    submission = server.state.get(number) if number is not None else None
    if submission is None:  # gone since the guard read it (access.py: another's is a 404 there)
        return error(404, "no such submission")
    if wait and submission.status in ("queued", "running"):
        status = submission.status
        deadline = time.monotonic() + wait
        while submission is not None and submission.status == status and time.monotonic() < deadline:
            # Read again each second too: with a shared database, another server may have graded it.
            await server.changes.wait(number, min(1.0, deadline - time.monotonic()))
            submission = server.state.get(number)
        assert submission is not None
    return Reply(shown_all(server.state, server.rules, caller, [submission], time.time(), server.private,
                           visible_inputs(server, submission.exercise, submission.student))[0])


def visible_inputs(server: Server, exercise_id: str, student: str | None = None) -> dict[str, str]:
    from grader.kinds import visible_inputs  # what `grader check` shows beside a failure

    try:
        return visible_inputs(server.exercises.get(exercise_id, student)[0])  # params: the student's variant
    except GraderError:
        return {}


async def list_submissions(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    query = request.query_params
    status = query.get("status")
    if status is not None and status not in STATUSES:
        return error(422, f"status is one of {', '.join(STATUSES)}")
    try:
        exercise = inputs.name(query["exercise"], "exercise") if "exercise" in query else None
        student = inputs.name(query["student"], "student") if "student" in query else None
    except Refused as problem:
        return refused(problem)
    found = server.state.list(student=caller.reach(student), exercise=exercise, status=status)
    now = time.time()
    return Reply({"submissions": shown_all(server.state, server.rules, caller, found, now, server.private)})


async def get_gradebook(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    kind = request.query_params.get("format", "json")
    if kind not in GRADEBOOK_FORMATS:
        return error(422, f"format is one of {', '.join(GRADEBOOK_FORMATS)}")
    if kind in ROSTER_FORMATS and not server.class_list:
        return error(422, f"format={kind} needs the class's roster, with an email, sis_id, login or id column: "
                          "start the server with --roster CSV")

    def text() -> str:
        book, applied = build_gradebook(server.state, server.exercises, server.rules)
        return gradebook_text(book, applied, kind, server.class_list or _plain_class_list(book.students))

    try:
        body = await run_in_threadpool(text)
    except GraderError as problem:  # an output that cannot be written for this class: names that clash
        return error(422, f"format={kind} cannot be written: {problem}")
    media = "application/json" if kind == "json" else "text/csv; charset=utf-8"
    return Response(body, media_type=media)


def _plain_class_list(students: list[str]) -> dict[str, Any]:
    from grader.batch.roster import class_list

    return class_list(students, {}, {}, None, {}, "server")


async def post_regrade(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    try:
        body = inputs.json_body(await request.body() or b"{}", '{"exercise": ID} or {}, "all": true to grade '
                                                                'everything again')
        chosen = inputs.name(body["exercise"], "exercise") if body.get("exercise") is not None else None
        everything = body.get("all", False)
        if not isinstance(everything, bool):
            raise Refused(422, "all is true or false")
    except Refused as problem:
        return refused(problem)
    from grader.server.regrade import regrade

    if chosen is not None and chosen not in server.exercises.ids():
        return error(404, f"no exercise {chosen!r} in this course")
    queued = await run_in_threadpool(regrade, server.state, server.exercises, chosen, everything)
    server.loop.wake()
    return Reply({"queued": queued}, status_code=202)


async def post_override(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    try:
        body = inputs.json_body(await request.body(), '{"student", "exercise", "score", "reason"}')
        if not {"student", "exercise", "score"} <= body.keys():
            raise Refused(422, 'the body is a JSON object: {"student", "exercise", "score", "reason"}')
        override = await run_in_threadpool(override_of, server, caller, body["student"], body["exercise"],
                                           body["score"], body.get("reason", ""))
    except Refused as problem:
        return refused(problem)
    server.state.set_override(override)
    return Reply({"student": override.student, "exercise": override.exercise, "score": override.score,
                  "reason": override.reason})


async def health(request: Request, caller: Caller | None) -> Response:
    """"ok" to anyone (a load balancer's probe); the queue, the workers and the exercises to staff only."""
    server = server_of(request)
    if caller is None or not caller.staff:  # what a reader sees, not who may call
        return Reply({"status": "ok"})
    return Reply({"status": "ok", "queue": server.state.counts(), "workers": server.loop.size,
                  "exercises": server.exercises.ids()})


async def openapi(request: Request, caller: Caller | None) -> Response:
    from grader.server.openapi import openapi_json

    return Response(openapi_json(), media_type="application/json")


def api_routes() -> list[BaseRoute]:
    """The JSON API's routes of this module; reviews' and analytics' are in their own modules."""
    return [
        route("/api/health", health, ["GET"], ANYONE),
        *health_routes(),  # /healthz, /readyz: the probes of a container, a proxy, Kubernetes
        route("/api/submissions", post_submission, ["POST"], SIGNED_IN),
        route("/api/submissions", list_submissions, ["GET"], SIGNED_IN),
        route("/api/submissions/{number}", get_submission, ["GET"], SIGNED_IN, owner="submission"),
        route("/api/gradebook", get_gradebook, ["GET"], STAFF_ONLY),
        route("/api/regrade", post_regrade, ["POST"], INSTRUCTOR),
        route("/api/overrides", post_override, ["POST"], STAFF_ONLY),
        route("/api/openapi.json", openapi, ["GET"], ANYONE),
    ]
