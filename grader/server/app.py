"""The HTTP side of `grader serve`: the JSON API (grader/schemas/server-api.schema.json) and the pages.

Starlette on uvicorn: an ASGI server answers fifty clients that wait on their reports without a thread each,
and Starlette's multipart parsing (python-multipart, streaming) takes limits on files, fields and part
sizes; the body itself is bounded here, before any of it is parsed."""

from __future__ import annotations

import asyncio
import functools
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
from grader.server import inputs, tokens
from grader.server.inputs import Refused
from grader.server.openapi import openapi_json
from grader.server.queue import Exercises, GradingLoop
from grader.server.rules import CourseRules
from grader.server.state import STATUSES, Override, State
from grader.server.tokens import Caller
from grader.server.views import GRADEBOOK_FORMATS, allowance, build_gradebook, gradebook_text, shown

HAND_IN_SUFFIXES = (".py", ".ipynb", ".zip")  # and the kind's own (.txt for a prediction)
MULTIPART_OVERHEAD = 64 * 1024  # the form's boundaries and small fields, beyond the file itself
WAIT_MOST = 60.0  # seconds a GET ?wait=S may wait
ROSTER_FORMATS = ("moodle",)  # a Moodle import needs an email, sis_id, login or id: only a roster has them


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
        except asyncio.TimeoutError:  # not the builtin TimeoutError before Python 3.11
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

    @functools.cached_property
    def private(self) -> tuple[str, ...]:
        """The server's folders (its state, the course's), which no text shown to a student names."""
        folders = (self.state.folder, self.exercises.course.exercises_dir.parent)
        return tuple(sorted({str(f) for f in folders} | {str(f.resolve()) for f in folders}, key=len, reverse=True))


class Reply(JSONResponse):
    """Every JSON reply: strict (no NaN or Infinity, which no JSON parser need take) and ASCII."""

    def render(self, content: Any) -> bytes:
        return inputs.strict_json(content).encode("ascii")


def error(status: int, message: str, **headers: str) -> Reply:
    return Reply({"error": message}, status_code=status, headers=headers or None)


def refused(problem: Refused) -> Reply:
    return error(problem.status, problem.reason)


def _bearer(request: Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def caller_of(server: Server, request: Request) -> Caller | None:
    """Who reads: a bearer token, else a signed-in browser's cookie (reads only: see changer_of)."""
    token = _bearer(request)
    if token is not None:
        return tokens.caller_of(server.state, token)
    from grader.server.pages import session_token  # a signed-in browser carries its token in a cookie

    return tokens.caller_of(server.state, session_token(request))


def changer_of(server: Server, request: Request) -> Caller | Reply:
    """Who changes something through the API: a bearer token only. A cookie goes with any request a page
    of another site (or of another host of this site: SameSite does not stop those) makes the browser
    send, a text/plain form included; an Authorization header never does. The pages' forms have their
    own CSRF tokens."""
    token = _bearer(request)
    if token is None and request.cookies:
        from grader.server.pages import session_token

        if session_token(request):
            return error(403, "the API changes nothing for a sign-in cookie: send Authorization: Bearer TOKEN "
                              "(the pages have forms of their own)")
    caller = tokens.caller_of(server.state, token)
    return unauthorized() if caller is None else caller


def unauthorized() -> Reply:
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
            sent_name = inputs.file_name(upload.filename or "")
    except HTTPException as problem:  # a malformed form, over a limit of the parser's, or over the body's
        return Accepted(refusal=too_large(server) if problem.status_code == 413 else
                        error(problem.status_code, str(problem.detail)))
    if len(data) > server.max_upload:
        return Accepted(refusal=too_large(server))
    if exercise_id not in server.exercises.ids():
        return Accepted(refusal=error(404, f"no exercise {exercise_id!r} in this course"))
    try:
        exercise = server.exercises.get(exercise_id)[0]
    except GraderError:  # its reason names the course's files: staff read it in a submission's error
        return Accepted(refusal=error(503, f"the exercise {exercise_id} cannot be graded now; your teacher can "
                                           "see why"))
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
            return Accepted(server.state.store(caller.student, exercise_id, sent_name, suffix, incoming,
                                               hashlib.sha256(data).hexdigest()))

    accepted = await run_in_threadpool(store)
    server.loop.wake()
    return accepted


def _over_the_rules(server: Server, student: str, exercise_id: str, now: float) -> Response | None:
    if server.rules.lateness(student, exercise_id, now).too_late:
        return error(403, f"the late cut-off for {exercise_id} has passed: no more submissions are taken")
    left = allowance(server.state, server.rules, student, exercise_id, now)
    if left is None or left.left > 0 or left.frees_at is None:
        return None
    wait = left.frees_at - now
    return error(429, f"{left.of} submissions of {exercise_id} per {left.window:g} s at most; try again "
                      f"in {math.ceil(wait)} s", **{"Retry-After": str(max(1, math.ceil(wait)))})


def too_large(server: Server) -> Reply:
    return error(413, f"the upload is over the limit of {server.max_upload // 1024} KiB")


# ---------------------------------------------------------------- the API
async def post_submission(request: Request) -> Response:
    server: Server = request.app.state.server
    caller = changer_of(server, request)
    if isinstance(caller, Reply):
        return caller
    accepted = await accept_upload(server, caller, request)
    if accepted.refusal is not None:
        return accepted.refusal
    return Reply({"id": accepted.number, "status": "queued"}, status_code=202,
                 headers={"Location": f"/api/submissions/{accepted.number}"})


async def get_submission(request: Request) -> Response:
    server: Server = request.app.state.server
    caller = caller_of(server, request)
    if caller is None:
        return unauthorized()
    number = inputs.submission_id(request.path_params["number"])
    try:
        wait = inputs.seconds(request.query_params.get("wait"), WAIT_MOST)
    except Refused as problem:
        return refused(problem)
    server.changes.loop = asyncio.get_running_loop()  # before the read: no change after it goes unheard
    submission = server.state.get(number) if number is not None else None
    if submission is None or not (caller.staff or submission.student == caller.student):
        return error(404, "no such submission")  # another's: as if it did not exist
    if wait and submission.status in ("queued", "running"):
        status = submission.status
        deadline = time.monotonic() + wait
        while submission is not None and submission.status == status and time.monotonic() < deadline:
            # Read again each second too: with a shared database, another server may have graded it.
            await server.changes.wait(number, min(1.0, deadline - time.monotonic()))
            submission = server.state.get(number)
        assert submission is not None
    return Reply(shown(submission, caller, server.rules, time.time(), server.private,
                       visible_inputs(server, submission.exercise, submission.student)))


def visible_inputs(server: Server, exercise_id: str, student: str | None = None) -> dict[str, str]:
    from grader.kinds import visible_inputs  # what `grader check` shows beside a failure

    try:
        return visible_inputs(server.exercises.get(exercise_id, student)[0])  # params: the student's variant
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
    try:
        exercise = inputs.name(query["exercise"], "exercise") if "exercise" in query else None
        student = inputs.name(query["student"], "student") if "student" in query and caller.staff else None
    except Refused as problem:
        return refused(problem)
    found = server.state.list(student=student if caller.staff else caller.student, exercise=exercise, status=status)
    now = time.time()
    return Reply({"submissions": [shown(s, caller, server.rules, now, server.private) for s in found]})


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


async def post_regrade(request: Request) -> Response:
    server: Server = request.app.state.server
    caller = changer_of(server, request)
    if isinstance(caller, Reply):
        return caller
    if not caller.staff:
        return error(403, "regrades are for staff")
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


def override_of(server: Server, caller: Caller, student: object, exercise: object, score: object,
                reason: object, typed: bool = False) -> Override:
    """A TA's override as the API or the staff page sent it, checked (`typed`: the score is a form's text):
    a known student and exercise, a finite score within the exercise's points, a reason of 500 characters."""
    student, exercise = inputs.name(student, "student"), inputs.name(exercise, "exercise")
    reason = inputs.text(reason, "reason", 500)
    if exercise not in server.exercises.ids():
        raise Refused(404, f"no exercise {exercise!r} in this course")
    if student not in server.state.students():
        raise Refused(404, f"no student {student!r} on this server")
    try:
        most = server.exercises.get(exercise)[0].max_score
    except GraderError:
        raise Refused(503, f"the exercise {exercise} cannot be read now: its points are unknown") from None
    points = inputs.score_text(score, most) if typed else inputs.score(score, most)
    return Override(student, exercise, points, reason, caller.student, time.time())


async def post_override(request: Request) -> Response:
    server: Server = request.app.state.server
    caller = changer_of(server, request)
    if isinstance(caller, Reply):
        return caller
    if not caller.staff:
        return error(403, "overrides are for staff")
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


async def health(request: Request) -> Response:
    """"ok" to anyone (a load balancer's probe); the queue, the workers and the exercises to staff only."""
    server: Server = request.app.state.server
    caller = caller_of(server, request)
    if caller is None or not caller.staff:
        return Reply({"status": "ok"})
    return Reply({"status": "ok", "queue": server.state.counts(), "workers": server.loop.size,
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


class _TooLarge(HTTPException):
    """Raised from the body's reader, inside whoever reads it: a form's parser hands it on as the 413 it is
    (an exception of its own would reach Starlette's error handler, which answers 500 first)."""

    def __init__(self) -> None:
        super().__init__(413, "the upload is over the limit")


class SameOrigin:
    """A request that changes something (any method but GET and HEAD) sent by a page of another origin is
    refused with 403 before any handler reads it: a browser names the page's origin in `Origin` (and
    `Sec-Fetch-Site`), which a page cannot forge. A client that is no browser sends neither."""

    SAFE = ("GET", "HEAD", "OPTIONS")

    def __init__(self, app: ASGIApp, cross_site_paths: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.cross_site_paths = cross_site_paths  # entry points another site posts to, vouched for otherwise

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in self.SAFE \
                and scope["path"] not in self.cross_site_paths and not _same_origin(scope):
            await _send_json(send, 403, b'{"error":"a request from a page of another site is refused"}')
            return
        await self.app(scope, receive, send)


def _same_origin(scope: Scope) -> bool:
    headers = {name: value for name, value in scope["headers"] if name in (b"origin", b"host", b"sec-fetch-site")}
    site = headers.get(b"sec-fetch-site")
    if site not in (None, b"same-origin", b"none"):  # cross-site, or same-site: another host of this site
        return False
    origin = headers.get(b"origin")
    if origin is None:
        return True
    if origin == b"null":  # a page with no referrer policy to spare, or a sandboxed frame: the browser decides
        return site == b"same-origin"
    scheme, _, host = origin.partition(b"://")
    # The host the browser asked for, compared with the page's: a reverse proxy that keeps Host (as they
    # do for virtual hosts) keeps this true behind TLS too, whatever the scheme the server sees.
    return scheme in (b"http", b"https") and bool(host) and host.lower() == headers.get(b"host", b"").lower()


async def _send_json(send: Send, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def make_app(server: Server) -> ASGIApp:
    from grader.platforms.lti.routes import CROSS_SITE_PATHS
    from grader.platforms.lti.routes import routes as lti_routes
    from grader.server.analytics_routes import get_analytics
    from grader.server.pages import page_routes
    from grader.server.review_routes import (get_audit, get_request, get_review, list_requests, post_release,
                                             post_request, post_request_reply, post_review, review_pages)

    routes = [
        Route("/api/health", health, methods=["GET"]),
        Route("/api/submissions", post_submission, methods=["POST"]),
        Route("/api/submissions", list_submissions, methods=["GET"]),
        Route("/api/submissions/{number}", get_submission, methods=["GET"]),
        Route("/api/gradebook", get_gradebook, methods=["GET"]),
        Route("/api/regrade", post_regrade, methods=["POST"]),
        Route("/api/overrides", post_override, methods=["POST"]),
        Route("/api/analytics", get_analytics, methods=["GET"]),
        Route("/api/reviews", post_review, methods=["POST"]),
        Route("/api/reviews", get_review, methods=["GET"]),
        Route("/api/reviews/release", post_release, methods=["POST"]),
        Route("/api/regrade-requests", post_request, methods=["POST"]),
        Route("/api/regrade-requests", list_requests, methods=["GET"]),
        Route("/api/regrade-requests/{number}", get_request, methods=["GET"]),
        Route("/api/regrade-requests/{number}", post_request_reply, methods=["POST"]),
        Route("/api/audit", get_audit, methods=["GET"]),
        Route("/api/openapi.json", lambda _: Response(openapi_json(), media_type="application/json"), methods=["GET"]),
        *review_pages(),  # reviews, regrade requests, the audit: before page_routes' /staff/students/{path}
        *page_routes(),
        *lti_routes(server),  # LTI 1.3: the LMS's launches, deep linking, the JWKS
    ]
    app = Starlette(routes=routes)
    app.state.server = server
    server.loop.on_change = server.changes.changed
    return SameOrigin(BoundedBody(app, server.max_upload + MULTIPART_OVERHEAD), CROSS_SITE_PATHS)
