"""The forms of the page to work in (exercise_view.py), for a signed-in browser (its cookie and the form's
CSRF token): run the visible tests on the text in the editor, save it as a draft (drafts.py, the rule the API's
PUT /api/drafts follows too), hand it in. Each works as a plain form, answered with the page; work.js sends
the same forms from script and takes the part it needs of the answer (a save: JSON, asked for by Accept).

A run grades the text against the caller's own variant with `grade()`, as a submission's worker does, asking
for the visible tests only (GradingRequest.visible_only: the hidden tests and the search never run) and
showing the report by the rule a student's submission is shown by (views.seen_by_student). Nothing of a run
is stored. Runs are rate-limited per student, and one runs at a time on a server, beside its workers."""

from __future__ import annotations

import asyncio
import json
import secrets
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute

from grader.errors import GraderError
from grader.server import drafts
from grader.server.access import SIGNED_IN, route
from grader.server.actions import accept_upload
from grader.server.exam_gate import address_of, after_save, closed_to, run_refusal
from grader.server.exercise_view import Work, exercise_view
from grader.server.inputs import Refused
from grader.server.tokens import Caller
from grader.server.web import (
    Reply,
    Server,
    csrf_ok,
    error,
    exercise_in_path,
    forbidden,
    message,
    not_found,
    server_of,
)

RUNS, PER = 10, 60.0  # a student's runs of the visible tests per minute: enough to work by, not a free computer
MOST_WAITING = 20  # runs waiting on a server at once; more are told to come back


class Runs:
    """The runs a server has made lately, per student, and the turn that lets one run at a time. A run waits
    for its turn in the event loop, not on a thread (the pages' threads are not held by a queue of runs),
    and a run that finds too many waiting is told to come back."""

    # Read and written on the event loop only: no lock.
    def __init__(self) -> None:
        self.made: dict[str, deque[float]] = {}
        self.turn = asyncio.Semaphore(1)
        self.waiting = 0  # runs waiting for their turn, or running

    def wait(self, student: str, now: float) -> float:
        """0 when a run of `student`'s may start now (and counts it), else the seconds until one may."""
        made = self.made.setdefault(student, deque())
        while made and made[0] <= now - PER:
            made.popleft()
        if len(made) >= RUNS:
            return made[0] + PER - now
        made.append(now)
        return 0.0


def runs_of(request: Request) -> Runs:
    if not hasattr(request.app.state, "runs"):
        request.app.state.runs = Runs()
    runs: Runs = request.app.state.runs
    return runs


# ---------------------------------------------------------------- the form every button sends
async def _sent(request: Request, server: Server) -> tuple[str, int] | Response:
    """The editor's text and the draft revision it was edited from, from a form whose CSRF token is right."""
    try:
        async with request.form(max_files=0, max_fields=8, max_part_size=server.max_upload + 1024) as form:
            if not csrf_ok(request, form.get("csrf")):
                return forbidden(request)
            code, base = form.get("code"), form.get("base", "0")
    except HTTPException as problem:  # a malformed form, or over a limit of the parser's or of the body's
        return _refused(request, Refused(problem.status_code, str(problem.detail)))
    try:
        if isinstance(code, str):  # a browser sends a textarea's lines ended by CRLF: the file has the editor's
            code = code.replace("\r\n", "\n")
        text = drafts.code_of(code, server.max_upload)
        if not isinstance(base, str) or not base.isascii() or not base.isdigit() or len(base) > 18:
            raise Refused(422, '"base" is the revision the work was edited from: a whole number, 0 for none')
        return text, drafts.base_of(int(base))
    except Refused as problem:
        return _refused(request, problem)


def _wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def _refused(request: Request, problem: Refused) -> Response:
    if _wants_json(request):
        return error(problem.status, problem.reason)
    return message(request, problem.status, "Not taken", f"{problem.reason[0].upper()}{problem.reason[1:]}.")


# ---------------------------------------------------------------- run the visible tests
def visible_run(server: Server, student: str, exercise_id: str, code: str) -> dict[str, Any]:
    """The report of `code` on the visible tests of `student`'s variant, as the student sees a submission's."""
    from grader.grading import GradingRequest, Pace, grade, read_submission
    from grader.kinds import kind_of
    from grader.outputs.json_report import as_json
    from grader.readers import Reader
    from grader.server.rows import Submission
    from grader.server.views import seen_by_student

    exercise = server.exercises.get(exercise_id, student)[0]
    expected = server.exercises.expected(exercise_id, student)
    name = f"{exercise_id}{kind_of(exercise.kind).suffix}"
    private = server.exercises.course.private_paths(server.state.folder)
    wish = GradingRequest(Pace.EVERY_TEST, Reader.STUDENT, visible_only=True, private_paths=private,
                          label=f"{student}/{name}")
    with tempfile.TemporaryDirectory(prefix="grader-run-") as folder:
        path = Path(folder) / name
        path.write_text(code, encoding="utf-8")
        report = grade(exercise, path, wish, handin=read_submission(path, exercise), expected=expected)
        now = time.time()
        run = Submission(0, student, exercise_id, name, name, "", now, "done", 1, None, report, None, now)
        seen = seen_by_student(run, server.rules, now, (*server.private, folder))
    assert seen.report is not None
    return as_json(seen.report)


async def _work(request: Request, server: Server) -> tuple[str, str, int] | Response:
    """The exercise a form of the page names and the text it sent, with the revision it was edited from."""
    exercise = exercise_in_path(request)
    if exercise is None:
        return not_found(request, "No such exercise.")
    sent = await _sent(request, server)
    return sent if isinstance(sent, Response) else (exercise, *sent)


async def run_visible(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    work = await _work(request, server)
    if isinstance(work, Response):
        return work
    exercise, code, base = work
    closed = await run_in_threadpool(run_refusal, server, caller, exercise, time.time(), address_of(request))
    if closed is not None:
        return await exercise_view(request, caller, Work(code, base, error=closed.reason), closed.status)
    runs = runs_of(request)
    if runs.waiting >= MOST_WAITING:
        return await exercise_view(request, caller, Work(code, base, error=(
            "many runs are waiting on the server: run again in a few seconds")), 503, {"Retry-After": "5"})
    wait = 0.0 if caller.staff else runs.wait(caller.student, time.time())
    if wait > 0:
        seconds = max(1, int(wait + 0.999))
        return await exercise_view(request, caller, Work(code, base, error=(
            f"at most {RUNS} runs of the visible tests a minute: run again in {seconds} s")), 429,
            {"Retry-After": str(seconds)})
    runs.waiting += 1
    try:
        async with runs.turn:
            report = await run_in_threadpool(visible_run, server, caller.student, exercise, code)
    except GraderError:
        return await exercise_view(request, caller, Work(code, base, error=(
            "the tests cannot be run now; your teacher can see why")), 503)
    finally:
        runs.waiting -= 1
    return await exercise_view(request, caller, Work(code, base, run=report))


# ---------------------------------------------------------------- save a draft
async def save_draft(request: Request, caller: Caller) -> Response:
    """The editor's text saved as the caller's draft: JSON for work.js (a receipt; 409 with the draft another
    page saved meanwhile), the page for a plain form (that draft shown beside the text sent, never lost)."""
    server = server_of(request)
    work = await _work(request, server)
    if isinstance(work, Response):
        return work
    exercise, code, base = work
    closed = await run_in_threadpool(closed_to, server, caller, exercise, time.time(), address_of(request))
    if closed is not None:
        return _refused(request, closed)
    try:
        draft = await run_in_threadpool(drafts.save, server.state, caller.student, exercise, code, base)
    except drafts.Stale as stale:
        current = stale.current.shown() if stale.current else {"exercise": exercise, "revision": 0, "code": None}
        if _wants_json(request):
            return Reply({"error": "saved meanwhile from another page: this is the draft as the server holds it",
                          "current": current}, status_code=409)
        # The text sent stays in the editor, edited now from the draft it would replace: saving again keeps it.
        return await exercise_view(request, caller, Work(code, int(current["revision"]), conflict=current), 409)
    exam = await run_in_threadpool(after_save, server, caller, draft, address_of(request))  # in the exam's log
    if _wants_json(request):
        return Reply({"receipt": draft.receipt(), "server_time": drafts.iso(time.time()), **({"exam": exam} if exam else {})})
    return RedirectResponse(f"/exercises/{quote(exercise, safe='')}#saved", status_code=303)


# ---------------------------------------------------------------- hand in
async def hand_in(request: Request, caller: Caller) -> Response:
    """The editor's text handed in: the same upload, by the same rules, as a file sent to /submit."""
    from grader.kinds import kind_of

    server = server_of(request)
    work = await _work(request, server)
    if isinstance(work, Response):
        return work
    exercise, code, base = work
    try:
        suffix = kind_of(server.exercises.get(exercise)[0].kind).suffix
    except GraderError:
        return await exercise_view(request, caller, Work(code, base, error=(
            "this exercise cannot be graded now; your teacher can see why")), 503)
    accepted = await accept_upload(server, caller, _as_upload(request, exercise, f"{exercise}{suffix}", code))
    if accepted.refusal is not None:
        reason = json.loads(bytes(accepted.refusal.body)).get("error", "refused")
        retry = accepted.refusal.headers.get("retry-after")
        return await exercise_view(request, caller, Work(code, base, error=reason), accepted.refusal.status_code,
                                   {"Retry-After": retry} if retry else None)
    return RedirectResponse(f"/submissions/{accepted.number}", status_code=303)


def _as_upload(request: Request, exercise: str, name: str, code: str) -> Request:
    """The request as a file upload of `code` named `name`: what actions.accept_upload reads. `exercise` is
    one of the course's ids and `name` made of it, so neither needs quoting in a part's header."""
    boundary = secrets.token_hex(16)
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="exercise"\r\n\r\n{exercise}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            f'Content-Type: text/plain; charset=utf-8\r\n\r\n').encode() + code.encode() + \
        f"\r\n--{boundary}--\r\n".encode()
    headers = [(key, value) for key, value in request.scope["headers"]
               if key not in (b"content-type", b"content-length")]
    headers += [(b"content-type", f"multipart/form-data; boundary={boundary}".encode()),
                (b"content-length", str(len(body)).encode())]
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return Request({**request.scope, "headers": headers}, receive)


def work_routes() -> list[BaseRoute]:
    return [route("/exercises/{exercise}/run", run_visible, ["POST"], SIGNED_IN, answer="page"),
            route("/exercises/{exercise}/draft", save_draft, ["POST"], SIGNED_IN, answer="page"),
            route("/exercises/{exercise}/hand-in", hand_in, ["POST"], SIGNED_IN, answer="page")]
