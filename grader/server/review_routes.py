"""The routes of reviews, regrade requests and the audit: the JSON API (changes by Bearer token only, as
every API change: app.changer_of) and the pages (forms with the pages' CSRF token; app.SameOrigin refuses
a form from another origin before any of this runs). The rules themselves are grader/server/reviews.py."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute

from grader.errors import GraderError
from grader.server import inputs, reviews
from grader.server.inputs import Refused
from grader.server.tokens import Caller
from grader.server.access import INSTRUCTOR, SIGNED_IN, STAFF_ONLY, STUDENT, route
from grader.server.web import Reply, csrf_ok, error, forbidden, page, refused, server_of

AUDIT_FORMATS = ("json", "csv")
REQUEST_STATUSES = ("open", "answered")
FORM_FIELDS = 2 * reviews.COMMENTS_MOST + 120  # a review form: its comments' two fields each, items, the rest


# ---------------------------------------------------------------- the API
async def _body(request: Request) -> Any | Reply:
    """The JSON body of a POST, or the reply that refuses it."""
    try:
        return inputs.json_body(await request.body(), "see /api/openapi.json")
    except Refused as problem:
        return refused(problem)


async def post_review(request: Request, caller: Caller) -> Response:
    body = await _body(request)
    if isinstance(body, Reply):
        return body
    try:
        review = await run_in_threadpool(reviews.save_review, server_of(request), caller, body)
    except Refused as problem:
        return refused(problem)
    return Reply(reviews.review_json(review))


async def get_review(request: Request, caller: Caller) -> Response:
    """GET /api/reviews?submission=N: staff read any review; a student their own once released."""
    server = server_of(request)
    try:
        submission = reviews.submission_of(server, caller, request.query_params.get("submission"))
    except Refused as problem:
        return refused(problem)
    review = reviews.visible_review(server, caller, submission)
    if review is None:
        return error(404, "no review of this submission" + ("" if caller.staff else " has been released"))
    return Reply(reviews.review_json(review))


async def post_release(request: Request, caller: Caller) -> Response:
    body = await _body(request)
    if isinstance(body, Reply):
        return body
    try:
        released = await run_in_threadpool(reviews.release, server_of(request), caller, body.get("exercise"),
                                           body.get("student"))
    except Refused as problem:
        return refused(problem)
    return Reply({"released": released})


async def post_request(request: Request, caller: Caller) -> Response:
    body = await _body(request)
    if isinstance(body, Reply):
        return body
    server = server_of(request)
    try:
        asked = await run_in_threadpool(reviews.ask, server, caller, body)
    except Refused as problem:
        return refused(problem)
    return Reply(reviews.request_json(server, asked, caller), status_code=201,
                 headers={"Location": f"/api/regrade-requests/{asked.id}"})


async def list_requests(request: Request, caller: Caller) -> Response:
    """A student's own requests; staff: everyone's (the inbox), `status` open or answered."""
    server = server_of(request)
    status = request.query_params.get("status")
    if status is not None and status not in REQUEST_STATUSES:
        return error(422, f"status is one of {', '.join(REQUEST_STATUSES)}")
    found = server.state.requests(student=caller.reach(None))
    return Reply({"requests": [reviews.request_json(server, r) for r in found if status in (None, r.status)]})


async def get_request(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    try:
        found = reviews.request_of(server, caller, request.path_params["number"])
    except Refused as problem:
        return refused(problem)
    return Reply(reviews.request_json(server, found, caller))


async def post_request_reply(request: Request, caller: Caller) -> Response:
    """Staff answer a request (and may change the score); its student may write again on it."""
    body = await _body(request)
    if isinstance(body, Reply):
        return body
    server = server_of(request)
    try:
        found = reviews.request_of(server, caller, request.path_params["number"])
        await run_in_threadpool(reviews.reply, server, caller, found, body)
    except Refused as problem:
        return refused(problem)
    return Reply(reviews.request_json(server, server.state.request(found.id), caller))


async def get_audit(request: Request, caller: Caller) -> Response:
    """GET /api/audit?student=NAME[&format=csv]: every score change of a student (staff)."""
    server = server_of(request)
    kind = request.query_params.get("format", "json")
    if kind not in AUDIT_FORMATS:
        return error(422, f"format is one of {', '.join(AUDIT_FORMATS)}")
    try:
        student = inputs.name(request.query_params.get("student"), "student")
    except Refused as problem:
        return refused(problem)
    if student not in server.state.students():
        return error(404, f"no student {student!r} on this server")
    rows = await run_in_threadpool(reviews.audit_rows, server, student)
    if kind == "csv":
        return Response(reviews.audit_csv(rows), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="audit.csv"'})
    return Reply({"student": student, "changes": rows})


# ---------------------------------------------------------------- the pages
def _refusal(request: Request, problem: Refused) -> Response:
    return page(request, "message.html.j2", problem.status, title="Not stored" if problem.status == 422 else
                "Not found" if problem.status == 404 else "Not allowed", message=problem.reason)


async def review_page(request: Request, caller: Caller) -> Response:
    """A submission's review: staff write it (rubric, line comments); its student reads it once released,
    comments beside the lines, and asks for a regrade there."""
    server = server_of(request)
    try:
        submission = reviews.submission_at(server, caller, request.path_params["number"])
        rubric = reviews.rubric_of(server, submission.exercise)
    except Refused as problem:
        return _refusal(request, problem)

    def facts() -> dict[str, Any]:
        from grader.quality.shown import offered_comments
        from grader.server.views import shown_all

        review = reviews.visible_review(server, caller, submission)
        lines = reviews.code_of(server, submission)
        notes: dict[int, list[str]] = {}
        for line, text in review.comments if review else ():
            notes.setdefault(line, []).append(text)
        seen = shown_all(server.state, server.rules, caller, [submission], time.time(), server.private)[0]
        report = seen["report"] or {}
        return {"submission": seen, "review": reviews.review_json(review) if review else None, "rubric": rubric,
                "lines": list(enumerate(lines, 1)), "notes": notes,
                "ticked": {item[0] for item in review.items} if review else set(),
                "tests": [t["name"] for t in report.get("tests", [])] if isinstance(report, dict) else [],
                "requests": [reviews.request_json(server, r) for r in server.state.requests(submission=submission.id)],
                # A new review's form offers the code quality issues as line comments, for staff to keep or clear.
                "offered": offered_comments(report.get("quality"), len(lines), reviews.COMMENTS_MOST)
                if caller.staff and review is None and isinstance(report, dict) else []}

    return page(request, "review.html.j2", staff=caller.staff, **await run_in_threadpool(facts))


async def review_form(request: Request, caller: Caller) -> Response:
    async with request.form(max_files=0, max_fields=FORM_FIELDS) as form:
        if not csrf_ok(request, form.get("csrf")):
            return forbidden(request)
        comments = [{"line": line, "text": text} for line, text in zip(form.getlist("line"), form.getlist("comment"))
                    if str(line).strip() or str(text).strip()]
        body = {"rubric": form.getlist("rubric"), "comments": comments, "summary": form.get("summary", "")}
    try:
        body["submission"] = reviews.submission_at(server_of(request), caller, request.path_params["number"]).id
        await run_in_threadpool(reviews.save_review, server_of(request), caller, body)
    except Refused as problem:
        return _refusal(request, problem)
    return RedirectResponse(f"/submissions/{body['submission']}/review", status_code=303)


async def reviews_page(request: Request, caller: Caller) -> Response:
    """Staff: every review, pending ones marked, and the forms that release them."""
    server = server_of(request)
    found = [reviews.review_json(r) for r in server.state.reviews()]
    return page(request, "reviews.html.j2", reviews=found, exercises=server.exercises.ids(),
                students=server.state.students(), message=request.query_params.get("message", ""))


async def release_form(request: Request, caller: Caller) -> Response:
    async with request.form(max_files=0, max_fields=8) as form:
        if not csrf_ok(request, form.get("csrf")):
            return forbidden(request)
        exercise, student = form.get("exercise") or None, form.get("student") or None
    try:
        released = await run_in_threadpool(reviews.release, server_of(request), caller, exercise, student)
    except Refused as problem:
        return _refusal(request, problem)
    return RedirectResponse(f"/staff/reviews?message=released+{len(released)}+review{'' if len(released) == 1 else 's'}", status_code=303)


async def request_form(request: Request, caller: Caller) -> Response:
    """A student asks for a regrade from their submission's review page."""
    async with request.form(max_files=0, max_fields=8) as form:
        if not csrf_ok(request, form.get("csrf")):
            return forbidden(request)
        about = str(form.get("about", ""))
        kind, _, name = about.partition(":")
        body = {"submission": form.get("submission"), "message": form.get("message"),
                **({"test": name} if kind == "test" else {"rubric_item": name} if kind == "rubric" else {})}
    server = server_of(request)
    try:
        asked = await run_in_threadpool(reviews.ask, server, caller, body)
    except Refused as problem:
        return _refusal(request, problem)
    return RedirectResponse(f"/regrade-requests/{asked.id}", status_code=303)


async def request_page(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    try:
        found = reviews.request_of(server, caller, request.path_params["number"])
    except Refused as problem:
        return _refusal(request, problem)
    most = None
    if caller.staff:
        try:
            most = server.exercises.get(found.exercise)[0].max_score
        except GraderError:  # a broken spec: the answer form takes no score
            most = None
    return page(request, "regrade.html.j2", staff=caller.staff, asked=reviews.request_json(server, found, caller),
                most=most)


async def reply_form(request: Request, caller: Caller) -> Response:
    async with request.form(max_files=0, max_fields=8) as form:
        if not csrf_ok(request, form.get("csrf")):
            return forbidden(request)
        body = {"message": form.get("message")}
        if caller.staff and form.get("score"):
            body["score"] = form.get("score")
    server = server_of(request)
    try:
        found = reviews.request_of(server, caller, request.path_params["number"])
        await run_in_threadpool(reviews.reply, server, caller, found, body, True)
    except Refused as problem:
        return _refusal(request, problem)
    return RedirectResponse(f"/regrade-requests/{found.id}", status_code=303)


async def inbox(request: Request, caller: Caller) -> Response:
    """Staff: every regrade request, open ones first; a student: their own."""
    server = server_of(request)
    found = server.state.requests(student=caller.reach(None))
    found.sort(key=lambda r: (r.status != "open", -r.id))
    return page(request, "inbox.html.j2", staff=caller.staff,
                requests=[reviews.request_json(server, r) for r in found])


async def audit_page(request: Request, caller: Caller) -> Response:
    server = server_of(request)
    student = request.query_params.get("student", "")
    if student not in server.state.students():
        return page(request, "message.html.j2", 404, title="Not found", message="No such student.")
    rows = await run_in_threadpool(reviews.audit_rows, server, student)
    return page(request, "audit.html.j2", student=student, changes=rows,
                csv=f"/api/audit?student={quote(student, safe='')}&format=csv")


def review_routes() -> list[BaseRoute]:
    """The API's routes and the pages' of reviews, regrade requests and the audit."""
    return [
        route("/api/reviews", post_review, ["POST"], STAFF_ONLY),
        route("/api/reviews", get_review, ["GET"], SIGNED_IN),
        route("/api/reviews/release", post_release, ["POST"], INSTRUCTOR),
        route("/api/regrade-requests", post_request, ["POST"], STUDENT),
        route("/api/regrade-requests", list_requests, ["GET"], SIGNED_IN),
        route("/api/regrade-requests/{number}", get_request, ["GET"], SIGNED_IN, owner="request"),
        route("/api/regrade-requests/{number}", post_request_reply, ["POST"], SIGNED_IN, owner="request"),
        route("/api/audit", get_audit, ["GET"], STAFF_ONLY),
        route("/submissions/{number}/review", review_page, ["GET"], SIGNED_IN, owner="submission", answer="page"),
        route("/submissions/{number}/review", review_form, ["POST"], STAFF_ONLY, answer="page"),
        route("/staff/reviews", reviews_page, ["GET"], STAFF_ONLY, answer="page"),
        route("/staff/reviews/release", release_form, ["POST"], INSTRUCTOR, answer="page"),
        route("/regrade-requests", inbox, ["GET"], SIGNED_IN, answer="page"),
        route("/regrade-requests", request_form, ["POST"], STUDENT, answer="page"),
        route("/regrade-requests/{number}", request_page, ["GET"], SIGNED_IN, owner="request", answer="page"),
        route("/regrade-requests/{number}", reply_form, ["POST"], SIGNED_IN, owner="request", answer="page"),
        route("/staff/audit", audit_page, ["GET"], STAFF_ONLY, answer="page"),
    ]
