"""The HTTP side of `grader serve`: the JSON API (grader/schemas/server-api.schema.json) and the pages.

Starlette on uvicorn: an ASGI server answers fifty clients that wait on their reports without a thread each,
and Starlette's multipart parsing (python-multipart, streaming) takes limits on files, fields and part
sizes; the body itself is bounded here, before any of it is parsed."""

from __future__ import annotations

import asyncio
import hashlib
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grader.errors import GraderError
from grader.kinds import kind_of
from grader.server import tokens
from grader.server.queue import Exercises, GradingLoop
from grader.server.rules import CourseRules
from grader.server.state import STATUSES, State
from grader.server.tokens import Caller
from grader.server.views import GRADEBOOK_FORMATS, build_gradebook, gradebook_text, submission_json

HAND_IN_SUFFIXES = (".py", ".ipynb", ".zip")  # and the kind's own (.txt for a prediction)
MULTIPART_OVERHEAD = 64 * 1024  # the form's boundaries and small fields, beyond the file itself


class Changes:
    """Wakes the requests waiting on a submission (GET ...?wait=S) when the grading thread starts or
    finishes it: a client learns of its report at once, without polling the server busy."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.events: dict[int, asyncio.Event] = {}

    def changed(self, number: int) -> None:  # from any thread
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._fire, number)

    def _fire(self, number: int) -> None:
        event = self.events.pop(number, None)
        if event is not None:
            event.set()

    async def wait(self, number: int, seconds: float) -> None:
        """Until the submission changes, or `seconds` pass. Called right after reading its status, with no
        await between: a change made since was read, one made later fires this event."""
        self.loop = asyncio.get_running_loop()
        event = self.events.setdefault(number, asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), seconds)
        except TimeoutError:
            pass


@dataclass
class Server:
    state: State
    exercises: Exercises
    rules: CourseRules
    loop: GradingLoop
    max_upload: int  # bytes
    class_list: dict[str, Any] = field(default_factory=dict)  # class.json for the LMS gradebooks
    secure_cookies: bool = True
    changes: Changes = field(default_factory=Changes)
    upload_turn: threading.Lock = field(default_factory=threading.Lock)  # see accept_upload


def error(status: int, message: str, **headers: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers or None)


def caller_of(server: Server, request: Request) -> Caller | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token:
        return tokens.caller_of(server.state, token.strip())
    from grader.server.pages import session_token  # a signed-in browser carries its token in a cookie

    return tokens.caller_of(server.state, session_token(request))


def unauthorized() -> JSONResponse:
    return error(401, "a valid token is needed: Authorization: Bearer TOKEN", **{"WWW-Authenticate": "Bearer"})


@dataclass
class Accepted:
    number: int | None = None
    refusal: Response | None = None
    csrf_failed: bool = False


async def accept_upload(server: Server, caller: Caller, request: Request,
                        csrf: Callable[[object], bool] | None = None) -> Accepted:
    """The hand-in of a POST stored, or the response that refuses it (413, 404, 422, 429, 403). `csrf`: a
    page's form, whose `csrf` field this judges."""
    try:
        async with request.form(max_files=1, max_fields=8, max_part_size=64 * 1024) as form:
            if csrf is not None and not csrf(form.get("csrf")):
                return Accepted(refusal=error(403, "a stale form"), csrf_failed=True)
            exercise_id, upload = form.get("exercise"), form.get("file")
            if not isinstance(exercise_id, str) or not isinstance(upload, UploadFile):
                return Accepted(refusal=error(422, "multipart fields `exercise` (an id) and `file` (a file) are needed"))
            data = await upload.read(server.max_upload + 1)
            sent_name = upload.filename or ""
    except HTTPException as problem:  # a malformed form, or over a limit of the parser's
        return Accepted(refusal=error(problem.status_code, str(problem.detail)))
    if len(data) > server.max_upload:
        return Accepted(refusal=too_large(server))
    if exercise_id not in server.exercises.ids():
        return Accepted(refusal=error(404, f"no exercise {exercise_id!r} in this course"))
    try:
        exercise = server.exercises.get(exercise_id)[0]
    except GraderError as problem:
        return Accepted(refusal=error(503, f"the exercise {exercise_id} cannot be graded now: {problem}"))
    suffix = PurePath(sent_name.replace("\\", "/")).suffix.lower()  # only its suffix: never a path of ours
    allowed = (*HAND_IN_SUFFIXES, kind_of(exercise.kind).suffix)
    if suffix not in allowed:
        return Accepted(refusal=error(422, f"{exercise_id} takes a file ending in {', '.join(sorted(set(allowed)))}; "
                                           f"this one ends in {suffix or 'nothing'}"))

    def refused() -> Response | None:
        return None if caller.staff else _over_the_rules(server, caller.student, exercise_id, time.time())

    def store() -> Accepted:
        refusal = refused()  # first: an upload over the rules costs no disk
        if refusal is not None:
            return Accepted(refusal=refusal)
        incoming = server.state.receive(data, f"{exercise_id}{suffix}")  # the slow part, outside the lock
        # One upload at a time waits for the database's lock, the others for their turn: the grading loop
        # then waits behind one upload's commit at most, not behind fifty.
        with server.upload_turn, server.state.lock:  # the rate limit's count and the row: never both fit
            refusal = refused()
            if refusal is not None:
                server.state.discard(incoming)
                return Accepted(refusal=refusal)
            return Accepted(server.state.store(caller.student, exercise_id, sent_name[-200:], suffix, incoming,
                                               hashlib.sha256(data).hexdigest()))

    accepted = await run_in_threadpool(store)
    server.loop.wake()
    return accepted


def _over_the_rules(server: Server, student: str, exercise_id: str, now: float) -> Response | None:
    if server.rules.lateness(student, exercise_id, now).too_late:
        return error(403, f"the late cut-off for {exercise_id} has passed: no more submissions are taken")
    rate = server.rules.of(exercise_id).rate
    if rate is None:
        return None
    recent = server.state.list(student=student, exercise=exercise_id, since=now - rate.window)
    if len(recent) < rate.submissions:
        return None
    wait = recent[-rate.submissions].submitted_at + rate.window - now
    return error(429, f"{rate.submissions} submissions of {exercise_id} per {rate.window:g} s at most; try again "
                      f"in {math.ceil(wait)} s", **{"Retry-After": str(max(1, math.ceil(wait)))})


def too_large(server: Server) -> JSONResponse:
    return error(413, f"the upload is over the limit of {server.max_upload // 1024} KiB")


# ---------------------------------------------------------------- the API
async def post_submission(request: Request) -> Response:
    server: Server = request.app.state.server
    caller = caller_of(server, request)
    if caller is None:
        return unauthorized()
    accepted = await accept_upload(server, caller, request)
    if accepted.refusal is not None:
        return accepted.refusal
    return JSONResponse({"id": accepted.number, "status": "queued"}, status_code=202,
                        headers={"Location": f"/api/submissions/{accepted.number}"})


async def get_submission(request: Request) -> Response:
    server: Server = request.app.state.server
    caller = caller_of(server, request)
    if caller is None:
        return unauthorized()
    try:
        number = int(request.path_params["number"])
    except ValueError:
        return error(404, "no such submission")
    server.changes.loop = asyncio.get_running_loop()  # before the read: no change after it goes unheard
    submission = server.state.get(number)
    if submission is None or not (caller.staff or submission.student == caller.student):
        return error(404, "no such submission")  # another's: as if it did not exist
    wait = _seconds(request.query_params.get("wait"))
    if wait and submission.status in ("queued", "running"):
        status = submission.status
        deadline = time.monotonic() + wait
        while submission is not None and submission.status == status and time.monotonic() < deadline:
            # Read again each second too: with a shared database, another server may have graded it.
            await server.changes.wait(number, min(1.0, deadline - time.monotonic()))
            submission = server.state.get(number)
        assert submission is not None
    return JSONResponse(submission_json(submission, server.rules, caller.staff, time.time(),
                                        visible_inputs(server, submission.exercise)))


def _seconds(text: str | None) -> float:
    """?wait=S: how long a GET may wait for the submission to change, at most a minute."""
    try:
        return min(max(float(text or 0), 0.0), 60.0)
    except ValueError:
        return 0.0


def visible_inputs(server: Server, exercise_id: str) -> dict[str, str]:
    from grader.kinds import visible_inputs  # what `grader check` shows beside a failure

    try:
        return visible_inputs(server.exercises.get(exercise_id)[0])
    except GraderError:
        return {}


async def list_submissions(request: Request) -> Response:
    server: Server = request.app.state.server
    caller = caller_of(server, request)
    if caller is None:
        return unauthorized()
    query = request.query_params
    status = query.get("status")
    if status is not None and status not in STATUSES:
        return error(422, f"status is one of {', '.join(STATUSES)}")
    student = query.get("student") if caller.staff else caller.student
    found = server.state.list(student=student, exercise=query.get("exercise"), status=status)
    now = time.time()
    return JSONResponse({"submissions": [submission_json(s, server.rules, caller.staff, now) for s in found]})


async def get_gradebook(request: Request) -> Response:
    server: Server = request.app.state.server
    caller = caller_of(server, request)
    if caller is None:
        return unauthorized()
    if not caller.staff:
        return error(403, "the gradebook is for staff")
    kind = request.query_params.get("format", "json")
    if kind not in GRADEBOOK_FORMATS:
        return error(422, f"format is one of {', '.join(GRADEBOOK_FORMATS)}")

    def text() -> str:
        book, applied = build_gradebook(server.state, server.exercises, server.rules)
        return gradebook_text(book, applied, kind, server.class_list or _plain_class_list(book.students))

    body = await run_in_threadpool(text)
    media = "application/json" if kind == "json" else "text/csv; charset=utf-8"
    return Response(body, media_type=media)


def _plain_class_list(students: list[str]) -> dict[str, Any]:
    from grader.batch.roster import class_list

    return class_list(students, {}, {}, None, {}, "server")


async def post_regrade(request: Request) -> Response:
    server: Server = request.app.state.server
    caller = caller_of(server, request)
    if caller is None:
        return unauthorized()
    if not caller.staff:
        return error(403, "regrades are for staff")
    try:
        body = await request.json() if await request.body() else {}
    except ValueError:
        return error(422, "the body is JSON: {\"exercise\": ID} or {}")
    if not isinstance(body, dict):
        return error(422, "the body is JSON: {\"exercise\": ID} or {}")
    from grader.server.regrade import regrade

    chosen = body.get("exercise")
    if chosen is not None and chosen not in server.exercises.ids():
        return error(404, f"no exercise {chosen!r} in this course")
    queued = await run_in_threadpool(regrade, server.state, server.exercises, chosen, bool(body.get("all")))
    server.loop.wake()
    return JSONResponse({"queued": queued}, status_code=202)


async def post_override(request: Request) -> Response:
    server: Server = request.app.state.server
    caller = caller_of(server, request)
    if caller is None:
        return unauthorized()
    if not caller.staff:
        return error(403, "overrides are for staff")
    try:
        body = await request.json()
        student, exercise, score = str(body["student"]), str(body["exercise"]), float(body["score"])
        reason = str(body.get("reason", ""))
    except (ValueError, KeyError, TypeError):
        return error(422, "the body is JSON: {\"student\", \"exercise\", \"score\", \"reason\"}")
    from grader.server.state import Override

    server.state.set_override(Override(student, exercise, score, reason, caller.student, time.time()))
    return JSONResponse({"student": student, "exercise": exercise, "score": score, "reason": reason})


async def health(request: Request) -> Response:
    server: Server = request.app.state.server
    return JSONResponse({"status": "ok", "queue": server.state.counts(), "workers": server.loop.size,
                         "exercises": server.exercises.ids()})


class BoundedBody:
    """413 for a body over the limit: at once by its Content-Length, or as soon as more arrives than that."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length", b"0")
        if not length.isdigit() or int(length) > self.limit:
            await _send_json(send, 413 if length.isdigit() else 400,
                             b'{"error":"the upload is over the limit"}' if length.isdigit() else
                             b'{"error":"a bad Content-Length"}')
            return
        received, started = 0, False

        async def bounded() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _TooLarge
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, bounded, watched)
        except _TooLarge:
            if not started:
                await _send_json(send, 413, b'{"error":"the upload is over the limit"}')


class _TooLarge(Exception):
    pass


async def _send_json(send: Send, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def make_app(server: Server) -> ASGIApp:
    from grader.platforms.lti.routes import routes as lti_routes
    from grader.server.pages import page_routes

    routes = [
        Route("/api/health", health, methods=["GET"]),
        Route("/api/submissions", post_submission, methods=["POST"]),
        Route("/api/submissions", list_submissions, methods=["GET"]),
        Route("/api/submissions/{number}", get_submission, methods=["GET"]),
        Route("/api/gradebook", get_gradebook, methods=["GET"]),
        Route("/api/regrade", post_regrade, methods=["POST"]),
        Route("/api/overrides", post_override, methods=["POST"]),
        *page_routes(),
        *lti_routes(server),  # LTI 1.3: the LMS's launches, deep linking, the JWKS
    ]
    app = Starlette(routes=routes)
    app.state.server = server
    server.loop.on_change = server.changes.changed
    return BoundedBody(app, server.max_upload + MULTIPART_OVERHEAD)
