"""The server's pages, rendered here with jinja2 (autoescape: every student text is escaped), no script:
a sign-in with a token, a student's page (submit, their submissions), an exercise's page (its statement,
the deadline and time left, the submissions left), a submission's report (reloading
itself until graded), and the staff's: the class (the batch report's histogram and per-exercise bars, drawn by
the same templates, above a grid of students × exercises sorted and filtered by its query: grid.py), a
student's page (every submission, its report as staff see it), a submission's code with line anchors, what
students get wrong per exercise (analytics_routes.py), the queue, overrides, regrades.

Signed in, the browser holds the token in an HttpOnly, SameSite=Strict, Secure cookie. Every form carries a
CSRF token that must equal the one in its own cookie (double submit), compared in constant time, and a form
a browser says came from another origin is refused before it is read (app.SameOrigin). Every submission a
page shows is the API's JSON of it (views.shown): a student's list and report pages cannot disagree."""

from __future__ import annotations

import functools
import hmac
import secrets
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from grader.server.tokens import Caller

COOKIE = "grader_session"
CSRF_COOKIE = "grader_csrf"
TEMPLATES = Path(__file__).parent / "templates"
HEADERS = {
    # No inline script and none from elsewhere (only the site's own live.js), nothing framed, nothing
    # sniffed: a student's text can only ever be text.
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; connect-src 'self'; "
                               "style-src 'unsafe-inline'; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    # Same-origin, not no-referrer: under no-referrer a browser sends its forms with `Origin: null`, and the
    # origin is what tells this site's forms from another's (app.SameOrigin).
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


LIVE_SCRIPT = (Path(__file__).parent / "static" / "live.js").read_bytes()


async def live_script(request: Request) -> Response:
    """The one script the pages use: parts marked data-live are fetched again and swapped in place."""
    return Response(LIVE_SCRIPT, media_type="text/javascript", headers={
        "X-Content-Type-Options": "nosniff", "Cache-Control": "max-age=3600"})


def session_token(request: Request) -> str | None:
    return request.cookies.get(COOKIE)


@functools.cache
def environment() -> Environment:
    """This folder's templates, and the batch report's (grader/outputs/html): the parts both draw alike."""
    from grader.outputs.html import TEMPLATES as SHARED
    from grader.outputs.html import shared

    env = Environment(loader=FileSystemLoader([TEMPLATES, SHARED]), autoescape=True, undefined=StrictUndefined)
    from grader.server.views import iso

    shared(env)
    env.filters["when"] = iso
    env.filters["points"] = points
    return env


def points(score: object) -> str:
    """A score as a person reads it: 6.4, not 6.3999999999999995."""
    return f"{round(score, 2):g}" if isinstance(score, (int, float)) and not isinstance(score, bool) else "—"


def page(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
    csrf = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(24)
    html = environment().get_template(template).render(csrf=csrf, **values)
    # A lone surrogate (a student's text) is no UTF-8: written as its escape rather than failing the page.
    response = HTMLResponse(html.encode("utf-8", "backslashreplace"), status_code=status, headers=HEADERS)
    if request.cookies.get(CSRF_COOKIE) != csrf:
        _cookie(request, response, CSRF_COOKIE, csrf)
    return response


def _cookie(request: Request, response: Response, name: str, value: str) -> None:
    server = request.app.state.server
    response.set_cookie(name, value, httponly=True, samesite="strict", secure=server.secure_cookies, path="/")


def csrf_ok(request: Request, sent: object) -> bool:
    expected = request.cookies.get(CSRF_COOKIE)
    return bool(expected) and isinstance(sent, str) and hmac.compare_digest(expected.encode(), sent.encode())  # type: ignore[union-attr]


def _caller(request: Request):  # type: ignore[no-untyped-def]
    from grader.server.app import caller_of

    return caller_of(request.app.state.server, request)


def forbidden(request: Request) -> HTMLResponse:
    return page(request, "message.html.j2", 403, title="Not allowed",
                message="The form was stale or not from this site: go back, reload the page and try again.")


def not_found(request: Request, message: str) -> HTMLResponse:
    return page(request, "message.html.j2", 404, title="Not found", message=message)


def history(request: Request, caller: Caller, student: str) -> list[dict[str, object]]:
    """A student's submissions, newest first, as `caller` may see them (views.shown: the one rule)."""
    from grader.server.views import shown

    server = request.app.state.server
    now = time.time()
    return [shown(s, caller, server.rules, now, server.private)
            for s in reversed(server.state.list(student=student))]


# ---------------------------------------------------------------- pages
async def home(request: Request) -> Response:
    caller = _caller(request)
    if caller is None:
        return page(request, "login.html.j2", error="")
    return RedirectResponse("/staff" if caller.staff else "/me", status_code=303)


async def login(request: Request) -> Response:
    from grader.server import tokens

    async with request.form(max_files=0, max_fields=4) as form:
        token, sent = form.get("token"), form.get("csrf")
    if not csrf_ok(request, sent):
        return forbidden(request)
    server = request.app.state.server
    caller = tokens.caller_of(server.state, token if isinstance(token, str) else None)
    if caller is None:
        return page(request, "login.html.j2", 401, error="That token is not valid.")
    response = RedirectResponse("/staff" if caller.staff else "/me", status_code=303)
    _cookie(request, response, COOKIE, str(token))
    return response


async def logout(request: Request) -> Response:
    async with request.form(max_files=0, max_fields=4) as form:
        if not csrf_ok(request, form.get("csrf")):
            return forbidden(request)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


async def me(request: Request) -> Response:
    caller = _caller(request)
    if caller is None:
        return RedirectResponse("/", status_code=303)
    server = request.app.state.server
    return page(request, "student.html.j2", student=caller.student, exercises=server.exercises.ids(),
                submissions=history(request, caller, caller.student), error="")


def span(seconds: float) -> str:
    """A stretch of time as a person reads it, to its two largest units: 2 d 3 h, 9 d, 59 min 58 s."""
    seconds = max(0, int(seconds))
    parts = [(seconds // 86400, "d"), (seconds % 86400 // 3600, "h"), (seconds % 3600 // 60, "min"), (seconds % 60, "s")]
    first = next((i for i, (amount, _) in enumerate(parts) if amount), len(parts) - 1)
    return " ".join(f"{amount} {unit}" for amount, unit in parts[first:first + 2] if amount) or "0 s"


def exercise_facts(request: Request, caller: Caller, exercise_id: str) -> dict[str, Any]:
    """What the exercise's page says to `caller` now: its statement, their deadline (extensions included)
    and the time left, the late rule, and what the rate rule leaves them (staff: no limit)."""
    from grader.server.views import allowance

    server = request.app.state.server
    now = time.time()
    exercise = server.exercises.get(exercise_id, caller.student)[0]  # params: the caller's own variant
    rules = server.rules.of(exercise_id)
    lateness = server.rules.lateness(caller.student, exercise_id, now)
    deadline = lateness.deadline
    left = None if caller.staff else allowance(server.state, server.rules, caller.student, exercise_id, now)
    return {"id": exercise_id, "title": exercise.title, "statement": exercise.statement, "deadline": deadline,
            "remaining": span(deadline - now) if deadline is not None and deadline > now else None,
            "late": rules.late, "cutoff": server.rules.cutoff_of(caller.student, exercise_id), "too_late": lateness.too_late and not caller.staff, "allowance": left,
            "window": span(left.window) if left is not None else None,
            "frees_in": span(left.frees_at - now) if left is not None and left.frees_at is not None else None}


async def exercise_page(request: Request) -> Response:
    from starlette.concurrency import run_in_threadpool

    from grader.errors import GraderError

    caller = _caller(request)
    if caller is None:
        return RedirectResponse("/", status_code=303)
    server = request.app.state.server
    exercise_id = request.path_params["exercise"]
    if exercise_id not in server.exercises.ids():
        return not_found(request, "No such exercise.")
    try:
        facts = await run_in_threadpool(exercise_facts, request, caller, exercise_id)
    except GraderError:
        return page(request, "message.html.j2", 503, title="Not available",
                    message="This exercise cannot be shown right now; staff can see why.")
    mine = [s for s in history(request, caller, caller.student) if s["exercise"] == exercise_id]
    return page(request, "exercise.html.j2", exercise=facts, submissions=mine, staff=caller.staff)


async def submit(request: Request) -> Response:
    from grader.server.app import accept_upload

    caller = _caller(request)
    if caller is None:
        return RedirectResponse("/", status_code=303)
    server = request.app.state.server
    accepted = await accept_upload(server, caller, request, csrf=lambda sent: csrf_ok(request, sent))
    if accepted.refusal is not None:
        if accepted.refusal.status_code == 403 and accepted.csrf_failed:
            return forbidden(request)
        import json

        reason = json.loads(bytes(accepted.refusal.body)).get("error", "refused")
        return page(request, "student.html.j2", accepted.refusal.status_code, student=caller.student,
                    exercises=server.exercises.ids(), submissions=history(request, caller, caller.student),
                    error=reason)
    return RedirectResponse(f"/submissions/{accepted.number}", status_code=303)


async def submission_page(request: Request) -> Response:
    from grader.server.inputs import submission_id
    from grader.server.views import shown

    caller = _caller(request)
    if caller is None:
        return RedirectResponse("/", status_code=303)
    server = request.app.state.server
    number = submission_id(request.path_params["number"])
    found = server.state.get(number) if number is not None else None
    if found is None or not (caller.staff or found.student == caller.student):
        return not_found(request, "No such submission.")
    code = stored_code(server, found) if caller.staff else None
    return page(request, "submission.html.j2", submission=shown(found, caller, server.rules, time.time(),
                                                                server.private), staff=caller.staff, code=code)


async def staff(request: Request) -> Response:
    """The class: the histogram and per-exercise bars of the batch report, and the grid (grid.py) sorted and
    filtered by the query; `live=1` reloads it as the queue moves."""
    from starlette.concurrency import run_in_threadpool

    caller = _caller(request)
    if caller is None:
        return RedirectResponse("/", status_code=303)
    if not caller.staff:
        return page(request, "message.html.j2", 403, title="Staff only", message="This page is for staff.")
    server = request.app.state.server
    values = await run_in_threadpool(class_values, server, dict(request.query_params))
    return page(request, "staff.html.j2", **values, message=request.query_params.get("message", "")[:200])


def class_values(server: Any, params: dict[str, str]) -> dict[str, Any]:
    from grader.batch.per_exercise import exercise_summaries
    from grader.gradebook import histogram
    from grader.outputs.html import rates_by_exercise
    from grader.server.grid import class_grid, read_query
    from grader.server.views import build_gradebook

    book, applied = build_gradebook(server.state, server.exercises, server.rules)
    everything = server.state.list()
    counted = {int(entry["submission"]) for entry in applied}  # type: ignore[call-overload]
    late = {s.id: server.rules.lateness(s.student, s.exercise, s.submitted_at).late
            for s in everything if s.id in counted}
    query, ignored = read_query(params, [e.id for e in book.exercises])
    grid = class_grid(book, applied, Counter((s.student, s.exercise) for s in everything), late, query, ignored)
    latest: dict[tuple[str, str], Any] = {}
    for submission in everything:
        if submission.report is not None:
            latest[(submission.student, submission.exercise)] = submission
    progress: dict[str, Counter[str]] = {e: Counter() for e in server.exercises.ids()}
    for (_, exercise), submission in latest.items():
        progress.setdefault(exercise, Counter())[str(submission.report.verdict)] += 1
    return {"grid": grid, "book": book, "bins": histogram(book), "summaries": exercise_summaries(book),
            "rates": rates_by_exercise(book), "progress": progress, "counts": server.state.counts(),
            "queue": [s for s in everything if s.status in ("queued", "running")],
            "analytics": {e.id: f"/staff/analytics/{quote(e.id, safe='')}" for e in book.exercises}}


async def staff_student(request: Request) -> Response:
    """A student, for staff: the grid's row (what counts, and why), then every submission of each exercise
    with its report as staff see it (hidden tests too), linked to its page and its code."""
    caller = _caller(request)
    if caller is None or not caller.staff:
        return RedirectResponse("/", status_code=303)
    server = request.app.state.server
    student = request.path_params["student"]
    if student not in server.state.students():
        return not_found(request, "No such student.")
    overrides = {e: o for (s, e), o in server.state.overrides().items() if s == student}
    from starlette.concurrency import run_in_threadpool

    from grader.server.review_routes import audit_of  # every score change, on the student's page

    values = await run_in_threadpool(class_values, server, {"name": ""})
    row = next((r for r in values["grid"].rows if r.student == student), None)
    submissions = history(request, caller, student)
    from grader.variants.served import wrong_variant_flags  # params: a hand-in that solves a classmate's variant

    flags = await run_in_threadpool(wrong_variant_flags, server.exercises, server.state, student)
    return page(request, "staff_student.html.j2", student=student, submissions=submissions, row=row,
                overrides=overrides, exercises=server.exercises.ids(), changes=audit_of(request, student),
                wrong_variants=flags)


def stored_code(server: Any, submission: Any) -> Any:
    """The hand-in's text, for staff, with line anchors (source.code_lines); None for a zip or a file that is
    not UTF-8 text."""
    from grader.handins.text import MAX_FILE_BYTES
    from grader.outputs.html.source import text_source

    path = server.state.path_of(submission)
    if path.suffix == ".zip":
        return None
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        text = data.decode("utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError):
        return None
    return text_source(text)


async def staff_regrade(request: Request) -> Response:
    from grader.server.regrade import regrade
    from starlette.concurrency import run_in_threadpool

    caller = _caller(request)
    if caller is None or not caller.staff:
        return RedirectResponse("/", status_code=303)
    async with request.form(max_files=0, max_fields=4) as form:
        if not csrf_ok(request, form.get("csrf")):
            return forbidden(request)
        chosen = form.get("exercise") or None
    server = request.app.state.server
    if chosen is not None and chosen not in server.exercises.ids():
        return not_found(request, "No such exercise.")
    queued = await run_in_threadpool(regrade, server.state, server.exercises, chosen)
    server.loop.wake()
    return RedirectResponse(f"/staff?message=regrade:+{len(queued)}+submissions+queued", status_code=303)


async def staff_override(request: Request) -> Response:
    from starlette.concurrency import run_in_threadpool

    from grader.server.app import override_of
    from grader.server.inputs import Refused

    caller = _caller(request)
    if caller is None or not caller.staff:
        return RedirectResponse("/", status_code=303)
    async with request.form(max_files=0, max_fields=8) as form:
        if not csrf_ok(request, form.get("csrf")):
            return forbidden(request)
        sent = [form.get(key, "") for key in ("student", "exercise", "score", "reason")]
    server = request.app.state.server
    try:
        override = await run_in_threadpool(override_of, server, caller, *sent, typed=True)
    except Refused as problem:
        return page(request, "message.html.j2", problem.status, title="Not stored", message=problem.reason)
    server.state.set_override(override)
    return RedirectResponse(f"/staff/students/{quote(override.student, safe='')}", status_code=303)


async def staff_similarity(request: Request) -> Response:
    """The similarity report, written afresh into the state folder; its pages are numbered, never named
    after a student, and only those names are served."""
    import re

    from starlette.concurrency import run_in_threadpool

    from grader.server.views import write_similarity

    caller = _caller(request)
    if caller is None or not caller.staff:
        return RedirectResponse("/", status_code=303)
    server = request.app.state.server
    out = server.state.folder / "reports"
    name = request.path_params.get("page", "")
    if not name:
        await run_in_threadpool(write_similarity, server.state, server.exercises, server.rules, out)
        return RedirectResponse("/staff/similarity/index.html", status_code=303)
    if not re.fullmatch(r"index\.html|pairs/\d{1,6}\.html", name) or not (out / "similarity" / name).is_file():
        return page(request, "message.html.j2", 404, title="Not found", message="No such page.")
    html = (out / "similarity" / name).read_text(encoding="utf-8")
    back = ('<nav aria-label="the course"><p><a href="/staff" id="back-to-grid">← the class grid</a></p></nav>')
    html = re.sub(r"(<body[^>]*>)", lambda found: found[1] + back, html, count=1)
    return HTMLResponse(html, headers=HEADERS)


def page_routes() -> list[BaseRoute]:
    from grader.server.analytics_routes import analytics_page

    return [
        Route("/", home, methods=["GET"]),
        Route("/static/live.js", live_script, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/me", me, methods=["GET"]),
        Route("/submit", submit, methods=["POST"]),
        Route("/submissions/{number}", submission_page, methods=["GET"]),
        Route("/exercises/{exercise}", exercise_page, methods=["GET"]),
        Route("/staff", staff, methods=["GET"]),
        Route("/staff/students/{student:path}", staff_student, methods=["GET"]),
        Route("/staff/regrade", staff_regrade, methods=["POST"]),
        Route("/staff/override", staff_override, methods=["POST"]),
        Route("/staff/similarity", staff_similarity, methods=["GET"]),
        Route("/staff/similarity/{page:path}", staff_similarity, methods=["GET"]),
        Route("/staff/analytics/{exercise}", analytics_page, methods=["GET"]),
    ]
