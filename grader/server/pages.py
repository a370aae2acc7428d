"""The server's pages, rendered here with jinja2 (autoescape: every student text is escaped), no script:
a sign-in with a token, a student's page (submit, their submissions), an exercise's page (its statement,
the deadline and time left, the submissions left), a submission's report (reloading
itself until graded), and the staff's: the class (the batch report's histogram and per-exercise bars, drawn by
the same templates, above a grid of students × exercises sorted and filtered by its query: grid.py), a
student's page (every submission, its report as staff see it), a submission's code with line anchors, what
students get wrong per exercise (analytics_routes.py), the queue, overrides, regrades.

Signed in, the browser holds the token in an HttpOnly, SameSite=Strict, Secure cookie. Every form carries a
CSRF token that must equal the one in its own cookie (double submit), compared in constant time, and a form
a browser says came from another origin is refused before it is read (guards.SameOrigin). Every submission a
page shows is the API's JSON of it (views.shown): a student's list and report pages cannot disagree."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute

from grader.server import reviews
from grader.server.access import ANYONE, INSTRUCTOR, SIGNED_IN, STAFF_ONLY, route
from grader.server.actions import accept_upload, override_of
from grader.server.exercise_view import exercise_view, history
from grader.server.tokens import Caller
from grader.server.web import (
    COOKIE,
    HEADERS,
    Server,
    csrf_ok,
    forbidden,
    not_found,
    page,
    server_of,
    set_cookie,
)

LIVE_SCRIPT = (Path(__file__).parent / "static" / "live.js").read_bytes()


async def live_script(request: Request, caller: Caller | None) -> Response:
    """The one script the pages use: parts marked data-live are fetched again and swapped in place."""
    return Response(LIVE_SCRIPT, media_type="text/javascript", headers={
        "X-Content-Type-Options": "nosniff", "Cache-Control": "max-age=3600"})


# ---------------------------------------------------------------- pages
async def home(request: Request, caller: Caller | None) -> Response:
    if caller is None:
        return page(request, "login.html.j2", error="")
    return RedirectResponse("/staff" if caller.staff else "/me", status_code=303)


async def login(request: Request, caller: Caller | None) -> Response:
    from grader.server import tokens

    async with request.form(max_files=0, max_fields=4) as form:
        token, sent = form.get("token"), form.get("csrf")
    if not csrf_ok(request, sent):
        return forbidden(request)
    server = server_of(request)
    caller = tokens.caller_of(server.state, token if isinstance(token, str) else None)
    if caller is None:
        return page(request, "login.html.j2", 401, error="That token is not valid.")
    response = RedirectResponse("/staff" if caller.staff else "/me", status_code=303)
    set_cookie(request, response, COOKIE, str(token))
    return response


async def logout(request: Request, caller: Caller | None) -> Response:
    async with request.form(max_files=0, max_fields=4) as form:
        if not csrf_ok(request, form.get("csrf")):
            return forbidden(request)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


async def me(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    return page(request, "student.html.j2", student=caller.student, exercises=server.exercises.ids(),
                submissions=history(request, caller, caller.student), error="")


async def exercise_page(request: Request, caller: Caller) -> Response:
    return await exercise_view(request, caller)


async def submit(request: Request, caller: Caller) -> Response:
    server = server_of(request)
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


async def submission_page(request: Request, caller: Caller) -> Response:
    from grader.server.inputs import submission_id
    from grader.server.views import shown_all

    server = server_of(request)
    number = submission_id(request.path_params["number"])
    found = server.state.get(number) if number is not None else None
    if found is None:  # gone since the guard read it (access.py: another's is a 404 there)
        return not_found(request, "No such submission.")
    code = stored_code(server, found) if caller.staff else None
    seen = shown_all(server.state, server.rules, caller, [found], time.time(), server.private)[0]
    return page(request, "submission.html.j2", submission=seen, staff=caller.staff, code=code)


async def staff(request: Request, caller: Caller) -> Response:
    """The class: the histogram and per-exercise bars of the batch report, and the grid (grid.py) sorted and
    filtered by the query; `live=1` reloads it as the queue moves."""
    from starlette.concurrency import run_in_threadpool

    server = server_of(request)
    values = await run_in_threadpool(class_values, server, dict(request.query_params))
    return page(request, "staff.html.j2", **values, message=request.query_params.get("message", "")[:200])


def class_values(server: Server, params: dict[str, str]) -> dict[str, Any]:
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


async def staff_student(request: Request, caller: Caller) -> Response:
    """A student, for staff: the grid's row (what counts, and why), then every submission of each exercise
    with its report as staff see it (hidden tests too), linked to its page and its code."""
    server = server_of(request)
    student = request.path_params["student"]
    if student not in server.state.students():
        return not_found(request, "No such student.")
    overrides = {e: o for (s, e), o in server.state.overrides().items() if s == student}
    from starlette.concurrency import run_in_threadpool

    values = await run_in_threadpool(class_values, server, {"name": ""})
    row = next((r for r in values["grid"].rows if r.student == student), None)
    submissions = history(request, caller, student)
    from grader.variants.served import (
        wrong_variant_flags,  # params: a hand-in that solves a classmate's variant
    )

    flags = await run_in_threadpool(wrong_variant_flags, server.exercises, server.state, student)
    return page(request, "staff_student.html.j2", student=student, submissions=submissions, row=row,
                overrides=overrides, exercises=server.exercises.ids(), changes=reviews.audit_rows(server, student),
                wrong_variants=flags)  # every score change; a hand-in that solves a classmate's variant


def stored_code(server: Server, submission: Any) -> Any:
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


async def staff_regrade(request: Request, caller: Caller) -> Response:
    from starlette.concurrency import run_in_threadpool

    from grader.server.regrade import regrade

    async with request.form(max_files=0, max_fields=4) as form:
        if not csrf_ok(request, form.get("csrf")):
            return forbidden(request)
        chosen = form.get("exercise") or None
    server = server_of(request)
    if chosen is not None and chosen not in server.exercises.ids():
        return not_found(request, "No such exercise.")
    queued = await run_in_threadpool(regrade, server.state, server.exercises, chosen)
    server.loop.wake()
    return RedirectResponse(f"/staff?message=regrade:+{len(queued)}+submissions+queued", status_code=303)


async def staff_override(request: Request, caller: Caller) -> Response:
    from starlette.concurrency import run_in_threadpool

    from grader.server.inputs import Refused

    async with request.form(max_files=0, max_fields=8) as form:
        if not csrf_ok(request, form.get("csrf")):
            return forbidden(request)
        sent = [form.get(key, "") for key in ("student", "exercise", "score", "reason")]
    server = server_of(request)
    try:
        override = await run_in_threadpool(override_of, server, caller, *sent, typed=True)
    except Refused as problem:
        return page(request, "message.html.j2", problem.status, title="Not stored", message=problem.reason)
    server.state.set_override(override)
    return RedirectResponse(f"/staff/students/{quote(override.student, safe='')}", status_code=303)


async def staff_similarity(request: Request, caller: Caller) -> Response:
    """The similarity report, written afresh into the state folder; its pages are numbered, never named
    after a student, and only those names are served."""
    import re

    from starlette.concurrency import run_in_threadpool

    from grader.server.views import write_similarity

    server = server_of(request)
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
    return [
        route("/", home, ["GET"], ANYONE, answer="page"),
        route("/static/live.js", live_script, ["GET"], ANYONE, answer="page"),
        route("/login", login, ["POST"], ANYONE, answer="page", proof="a valid token in the form"),
        route("/logout", logout, ["POST"], ANYONE, answer="page"),
        route("/me", me, ["GET"], SIGNED_IN, answer="page"),
        route("/submit", submit, ["POST"], SIGNED_IN, answer="page"),
        route("/submissions/{number}", submission_page, ["GET"], SIGNED_IN, owner="submission", answer="page"),
        route("/exercises/{exercise}", exercise_page, ["GET"], SIGNED_IN, answer="page"),
        route("/staff", staff, ["GET"], STAFF_ONLY, answer="page"),
        route("/staff/students/{student:path}", staff_student, ["GET"], STAFF_ONLY, answer="page"),
        route("/staff/regrade", staff_regrade, ["POST"], INSTRUCTOR, answer="page"),
        route("/staff/override", staff_override, ["POST"], STAFF_ONLY, answer="page"),
        route("/staff/similarity", staff_similarity, ["GET"], INSTRUCTOR, answer="page"),
        route("/staff/similarity/{page:path}", staff_similarity, ["GET"], INSTRUCTOR, answer="page"),
    ]
