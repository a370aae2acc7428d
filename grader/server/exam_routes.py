"""Exams on the server: the API (`GET /api/exams`, `GET /api/exams/{exam}` with the server's time and the
time left, `POST /api/exams/{exam}/start`, staff's `GET /api/exams/{exam}/log`), the exam's page (its timer
counts the server's time left on the page's own monotonic clock: static/exam.js) and the sweep that grades
each student's last saved work when their time is up (exams_store.sweep), run beside the server as a part."""

from __future__ import annotations

import threading
import time
import traceback
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute

from grader.errors import GraderError
from grader.server import drafts, exams, exams_store, inputs
from grader.server.access import ANYONE, SIGNED_IN, STAFF_ONLY, route
from grader.server.exams import Exam
from grader.server.inputs import Refused
from grader.server.roles import Caller
from grader.server.web import (
    Reply,
    Server,
    csrf_ok,
    forbidden,
    message,
    not_found,
    page,
    refused,
    server_of,
)

EXAM_SCRIPT = (Path(__file__).parent / "static" / "exam.js").read_bytes()
SWEEP_EVERY = 1.0  # seconds between two looks for students whose time is up


def _exam(server: Server, request: Request) -> Exam:
    found = server.rules.exams.exams().get(request.path_params["exam"])
    if found is None:
        raise Refused(404, "no such exam in this course")
    return found


def _address(request: Request) -> str | None:
    return request.client.host if request.client else None  # a proxy's own, behind one: see docs/exams.md


def view(server: Server, caller: Caller, exam: Exam, begun: exams_store.Start | None, now: float) -> dict[str, Any]:
    """The exam as `caller` sees it now, by the server's clock: their own terms, their start and end."""
    terms = exam.terms(caller.student)
    started = begun.started_at if begun else None
    shown = started is not None or caller.staff  # its exercises are shown from the start on
    return {
        "id": exam.id, "title": exam.title, "server_time": drafts.iso(now),
        "phase": exams.phase(exam, caller.student, started, now),
        "opens": drafts.iso(terms.opens), "closes": drafts.iso(terms.closes),
        "minutes": round(terms.duration / 60, 3), "time_factor": terms.time_factor,
        "feedback": exam.feedback, "results_at": drafts.iso(exam.released_at),
        "started_at": drafts.iso(started) if started is not None else None,
        "ends_at": drafts.iso(exams.ends_at(exam, caller.student, started)) if started is not None else None,
        "seconds_left": _rounded(exams.seconds_left(exam, caller.student, started, now)),
        "test_run": bool(begun and begun.test_run),
        "exercises": list(exam.exercises) if shown else [],
    }


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)


# ---------------------------------------------------------------- the API
async def list_exams(request: Request, caller: Caller) -> Response:
    server = server_of(request)

    def gather() -> dict[str, Any]:
        now = time.time()
        found = [view(server, caller, exam, exams_store.started(server.state, exam.id, caller.student), now)
                 for exam in server.rules.exams.exams().values()]
        answer: dict[str, Any] = {"exams": found, "server_time": drafts.iso(now)}
        if caller.staff:  # a broken exam file, as `grader validate` words it
            answer["problems"] = [str(p) for p in server.rules.exams.problems()]
        return answer

    return Reply(await run_in_threadpool(gather))


async def get_exam(request: Request, caller: Caller) -> Response:
    """The exam, the time left; from a page that started it, word that it is there (the log's heartbeat)."""
    server = server_of(request)
    try:
        exam = _exam(server, request)
    except Refused as problem:
        return refused(problem)

    def gather() -> dict[str, Any]:
        begun = exams_store.started(server.state, exam.id, caller.student)
        now = time.time()
        if begun is not None and begun.graded_at is None:
            exams_store.contact(server.state, exam, begun, now, _address(request))
        return view(server, caller, exam, begun, now)

    return Reply(await run_in_threadpool(gather))


def begin(server: Server, caller: Caller, exam: Exam, address: str | None) -> exams_store.Start:
    """The caller's start (made now if they had none), or Refused: before the window, after it, or from an
    address outside the exam's ranges. Staff start a test run, at any time, from anywhere."""
    now = time.time()
    begun = exams_store.started(server.state, exam.id, caller.student)
    reason = exams.start_refusal(exam, caller.student, begun.started_at if begun else None, now, caller.staff)
    if reason is None and not caller.staff:
        reason = exams.address_refusal(exam, address)
    if reason is not None:
        raise Refused(403, reason)
    if begun is None:
        return exams_store.start(server.state, exam.id, caller.student, now, caller.staff, address)
    exams_store.contact(server.state, exam, begun, now, address, "opened", {"address": address})
    return begun


async def post_start(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    try:
        exam = _exam(server, request)
        begun = await run_in_threadpool(begin, server, caller, exam, _address(request))
    except Refused as problem:
        return refused(problem)
    return Reply(view(server, caller, exam, begun, time.time()))


async def get_log(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    try:
        exam = _exam(server, request)
        student = inputs.name(request.query_params["student"], "student") if "student" in request.query_params \
            else None
    except Refused as problem:
        return refused(problem)
    events = await run_in_threadpool(exams_store.log, server.state, exam.id, student)
    begun = {s.student: s for s in await run_in_threadpool(exams_store.starts, server.state, exam.id)}
    students = sorted({name for name, _ in events} | ({student} if student else set(begun)))
    return Reply({"exam": exam.id, "students": [{
        "student": name, "started_at": drafts.iso(begun[name].started_at) if name in begun else None,
        "ends_at": drafts.iso(exams.ends_at(exam, name, begun[name].started_at)) if name in begun else None,
        "test_run": begun[name].test_run if name in begun else False,
        "events": [{"at": drafts.iso(e.at), "what": e.what, **e.detail} for n, e in events if n == name]}
        for name in students]})


# ---------------------------------------------------------------- the page
def page_values(server: Server, caller: Caller, exam: Exam, request: Request) -> dict[str, Any]:
    from markupsafe import Markup

    from grader.outputs.html.markdown import markdown_html

    now = time.time()
    begun = exams_store.started(server.state, exam.id, caller.student)
    shown = view(server, caller, exam, begun, now)
    work = []
    if shown["phase"] == "running":
        exams_store.contact(server.state, exam, begun, now, _address(request), "opened", {})  # type: ignore[arg-type]
        for exercise_id in exam.exercises:
            try:
                exercise = server.exercises.get(exercise_id, caller.student)[0]  # params: their own variant
                title, statement = exercise.title, markdown_html(exercise.statement)
            except GraderError:
                title, statement = exercise_id, Markup("")
            draft = drafts.latest(server.state, caller.student, exercise_id)
            fresh = draft is not None and begun is not None and draft.saved_at >= begun.started_at
            work.append({"id": exercise_id, "title": title, "statement": statement,
                         "code": draft.code if draft else "", "revision": draft.revision if draft else 0,
                         "receipt": draft.receipt() if draft and fresh else None})
    handed = [found for number in exams_store.handins(server.state, exam.id, caller.student)
              if (found := server.state.get(number)) is not None] if shown["phase"] == "ended" else []
    reason = exams.start_refusal(exam, caller.student, None, now, caller.staff) if begun is None else None
    return {"exam": shown, "work": work, "handed": handed, "refusal": reason, "staff": caller.staff,
            "graded": begun is not None and begun.graded_at is not None}


async def exam_page(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    try:
        exam = _exam(server, request)
    except Refused:
        return not_found(request, "No such exam.")
    values = await run_in_threadpool(page_values, server, caller, exam, request)
    return page(request, "exam.html.j2", **values)


async def exams_page(request: Request, caller: Caller) -> Response:
    """The course's exams, each with the caller's phase and window: the way to an exam's page."""
    server = server_of(request)

    def gather() -> list[dict[str, Any]]:
        now = time.time()
        return [view(server, caller, exam, exams_store.started(server.state, exam.id, caller.student), now)
                for exam in server.rules.exams.exams().values()]

    return page(request, "exams.html.j2", exams=await run_in_threadpool(gather))


async def start_from_page(request: Request, caller: Caller) -> Response:
    async with request.form(max_files=0, max_fields=4) as form:
        if not csrf_ok(request, form.get("csrf")):
            return forbidden(request)
    server = server_of(request)
    try:
        exam = _exam(server, request)
        await run_in_threadpool(begin, server, caller, exam, _address(request))
    except Refused as problem:
        return message(request, problem.status, "Not started" if problem.status == 403 else "Not found",
                       problem.reason[0].upper() + problem.reason[1:] + ".")
    return RedirectResponse(f"/exams/{exam.id}", status_code=303)


async def exam_script(request: Request, caller: Caller | None) -> Response:
    return Response(EXAM_SCRIPT, media_type="text/javascript", headers={
        "X-Content-Type-Options": "nosniff", "Cache-Control": "max-age=3600"})


# ---------------------------------------------------------------- the part: routes and the sweep
class ExamDesk:
    """The exams' routes, and the thread that submits each student's last drafts at their end."""

    cross_site_paths: frozenset[str] = frozenset()

    def __init__(self, server: Server) -> None:
        self.server = server
        self._thread: threading.Thread | None = None

    def routes(self) -> list[BaseRoute]:
        return [
            route("/api/exams", list_exams, ["GET"], SIGNED_IN),
            route("/api/exams/{exam}", get_exam, ["GET"], SIGNED_IN),
            route("/api/exams/{exam}/start", post_start, ["POST"], SIGNED_IN,
                  proof="a student: within their window, from the exam's addresses; staff: a test run"),
            route("/api/exams/{exam}/log", get_log, ["GET"], STAFF_ONLY),
            route("/exams", exams_page, ["GET"], SIGNED_IN, answer="page"),
            route("/exams/{exam}", exam_page, ["GET"], SIGNED_IN, answer="page"),
            route("/exams/{exam}/start", start_from_page, ["POST"], SIGNED_IN, answer="page",
                  proof="a student: within their window, from the exam's addresses; staff: a test run"),
            route("/static/exam.js", exam_script, ["GET"], ANYONE, answer="page"),
        ]

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="exam-sweep", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                self.sweep(time.time())
            except Exception:  # noqa: BLE001 - the sweep must outlive any one exam's trouble
                traceback.print_exc()
            time.sleep(SWEEP_EVERY)

    def sweep(self, now: float) -> list[int]:
        server = self.server
        found = server.rules.exams.exams()
        if not found:
            return []
        made = exams_store.sweep(server.state, found, self._suffix, now, server.state.name)
        if made:
            server.loop.wake()
        return made

    def _suffix(self, exercise_id: str) -> str:
        from grader.kinds import kind_of

        try:
            return kind_of(self.server.exercises.get(exercise_id)[0].kind).suffix
        except GraderError:
            return ".py"
