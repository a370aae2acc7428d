"""The tool's routes: /lti/login (OIDC third-party login), /lti/launch (resource link and deep linking),
/lti/jwks, the exercise page a launch opens, the instructor's pick, and staff's /api/lti/* (status, sync).

A launch signs its user in with the server's own session cookie (a token issued for them, never shown), so
every page and API of the server knows them. The LMS shows the tool in an iframe from another site: the
cookies a launch sets are SameSite=None (with Secure; a browser refuses the one without the other), and the
CSRF defence stays the server's double submit, with a cookie of its own that also works framed. Only the
pages here may be framed, and only by the registered platforms' origins."""

from __future__ import annotations

import hmac
import html
import secrets
import time
from typing import Any
from urllib.parse import urlencode, urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from grader.platforms.lti.store import Link, Store, is_staff, wanted_name

CSRF_COOKIE = "grader_lti_csrf"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"


def _store(request: Request) -> Store:
    server = request.app.state.server
    store = getattr(server, "_lti_store", None)
    if store is None:
        store = Store(server.state)
        server._lti_store = store  # one per server: its tables are made once
    return store


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _framed_by(store: Store) -> str:
    origins = sorted({f"{p.scheme}://{p.netloc}" for p in (urlsplit(x.login_url) for x in store.platforms())})
    return " ".join(origins) or "'none'"


def _page(request: Request, title: str, body: str, status: int = 200, form_to: str = "") -> HTMLResponse:
    """A page of the tool's own: no script, framed only by the platforms, forms only to us (or to the
    platform's deep-linking return)."""
    store = _store(request)
    csp = (f"default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; "
           f"form-action 'self' {form_to}".rstrip() +
           f"; frame-ancestors 'self' {_framed_by(store)}; base-uri 'none'")
    text = (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>"
            "<style>body{font-family:system-ui,sans-serif;margin:1rem}table{border-collapse:collapse}"
            "td,th{padding:.2rem .6rem;border-bottom:1px solid #ccc;text-align:left}</style></head>"
            f"<body><main><h1>{html.escape(title)}</h1>{body}</main></body></html>")
    return HTMLResponse(text, status_code=status, headers={
        "Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store"})


def _refused(request: Request, reason: str, status: int = 403) -> HTMLResponse:
    return _page(request, "The launch was refused", f"<p>{html.escape(reason)}</p>", status)


def _set_cookie(request: Request, response: Response, name: str, value: str, seconds: int | None = None,
                framed: bool = True) -> None:
    """`framed`: a cookie the page in the LMS's iframe needs. Framed by another site, a cookie is sent only
    when SameSite=None, which browsers take only with Secure; a server on plain HTTP (--insecure-cookies)
    keeps Lax, usable when the LMS is on the same site. A staff session is never SameSite=None: the staff API
    is not to be reachable by another site's request riding on a cookie."""
    secure = request.app.state.server.secure_cookies
    response.set_cookie(name, value, max_age=seconds, httponly=True, secure=secure,
                        samesite="none" if secure and framed else "lax", path="/")


def _csrf(request: Request) -> str:
    return request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(24)


def _csrf_ok(request: Request, sent: object) -> bool:
    expected = request.cookies.get(CSRF_COOKIE)
    return bool(expected) and isinstance(sent, str) and hmac.compare_digest(expected.encode(), sent.encode())  # type: ignore[union-attr]


class BadForm(Exception):
    """A form no LMS sends (broken encoding, too many fields, a file, a NUL): a 400 page, never a 500."""


async def _params(request: Request) -> dict[str, str]:
    params = {k: v for k, v in request.query_params.items()}
    if request.method == "POST":
        try:
            async with request.form(max_files=0, max_fields=32, max_part_size=64 * 1024) as form:
                params |= {k: v for k, v in form.items() if isinstance(v, str)}
        except Exception as problem:  # noqa: BLE001 - Starlette's parser says why in its own exceptions
            raise BadForm(str(getattr(problem, "detail", "")) or type(problem).__name__) from None
    if any("\x00" in key or "\x00" in value for key, value in params.items()):
        raise BadForm("a NUL character")  # no value of the protocol has one; PostgreSQL's text takes none
    return params


def _lti_request(request: Request, params: dict[str, str]) -> Any:
    from grader.platforms.lti.protocol import LtiRequest

    return LtiRequest(params, dict(request.cookies), request.app.state.server.secure_cookies)


# ---------------------------------------------------------------- the protocol
async def login(request: Request) -> Response:
    from grader.platforms.lti.protocol import LaunchError, login_redirect

    try:
        params = await _params(request)
    except BadForm as problem:
        return _refused(request, f"a malformed login: {problem}", 400)
    store = _store(request)
    try:
        location, cookies = await run_in_threadpool(login_redirect, store, _lti_request(request, params),
                                                    f"{_base(request)}/lti/launch")
    except LaunchError as problem:
        return _refused(request, f"The login could not begin: {problem}", 400)
    response = RedirectResponse(location, status_code=302)
    for name, (value, seconds) in cookies.to_set.items():
        _set_cookie(request, response, name, value, seconds)
    return response


def _name_of(body: dict[str, Any]) -> str:
    """The server's name for the launch's user: their LMS login where the LMS sends it (Moodle's, Canvas's),
    else their email, else the LMS's opaque id."""
    ext = body.get(f"{CLAIM}ext") or {}
    custom = body.get(f"{CLAIM}custom") or {}
    return wanted_name([ext.get("user_username"), custom.get("user_login"), custom.get("canvas_user_login_id"),
                        body.get("preferred_username"), body.get("email")], str(body.get("sub")))


def _is_staff(body: dict[str, Any]) -> bool:
    return is_staff(body.get(f"{CLAIM}roles") or [])


async def launch(request: Request) -> Response:
    from grader.platforms.lti.protocol import CookieLost, LaunchError, validated_launch
    from grader.server import tokens

    try:
        params = await _params(request)
    except BadForm as problem:
        return _refused(request, f"a malformed launch: {problem}", 400)
    store = _store(request)
    server = request.app.state.server
    try:
        checked = await run_in_threadpool(validated_launch, store, _lti_request(request, params))
    except CookieLost as lost:
        return _new_window(request, lost)
    except LaunchError as problem:
        return _refused(request, f"This launch was refused: {problem}")
    body = checked.get_launch_data()
    issuer, subject, staff = body["iss"], str(body.get("sub") or ""), _is_staff(body)
    if not subject:
        return _refused(request, "an anonymous launch: the tool needs to know who submits")
    context = str((body.get(f"{CLAIM}context") or {}).get("id", ""))
    name = store.user(issuer, subject, _name_of(body), staff)
    store.save_member(issuer, context, subject, body.get("name"), body.get("email"), body.get(f"{CLAIM}roles") or [])
    from grader.server.pages import COOKIE

    # A browser that launched as this person before keeps its session: a token per launch would fill the
    # table with tokens of the same person.
    token = request.cookies.get(COOKIE, "")
    held = tokens.caller_of(server.state, token)
    if held is None or held.student != name or held.staff != staff:
        token = tokens.issue(server.state, name, staff=staff)
    if checked.is_deep_link_launch():
        if not staff:
            return _refused(request, "only an instructor adds exercises to a course")
        response: Response = _pick_page(request, checked.get_launch_id())
    elif checked.is_resource_launch():
        exercise = str((body.get(f"{CLAIM}custom") or {}).get("exercise") or request.query_params.get("exercise", ""))
        if exercise not in server.exercises.ids():
            return _refused(request, f"this link names no exercise of this course ({exercise or 'none'})", 404)
        ags, nrps = body.get(AGS_CLAIM) or {}, body.get(NRPS_CLAIM) or {}
        link = str((body.get(f"{CLAIM}resource_link") or {}).get("id", ""))
        store.save_link(Link(issuer, checked.get_client_id(), link, context, exercise, ags.get("lineitem"),
                             tuple(ags.get("scope") or ()), nrps.get("context_memberships_url")))
        response = RedirectResponse(f"/lti/exercises/{exercise}", status_code=303)
        _passback(server).wake()  # a new link or member may have a score waiting
    else:
        return _refused(request, "this kind of LTI message is not one the tool answers", 400)
    _set_cookie(request, response, COOKIE, token, framed=not staff)
    return response


def _new_window(request: Request, lost: Any) -> HTMLResponse:
    """The launch cannot be tied to this browser inside the LMS's page: its cookies did not come back (a
    browser that blocks third-party cookies, as Chromium and Safari do by default). Nothing of the launch is
    used; a link begins the same login again in a window of its own, where the tool is the site the browser
    shows and its cookies are first-party. The link holds only what the LMS's login form held: no token."""
    body = f"<p>{html.escape(str(lost))}, so the launch could not sign you in here (the login's state).</p>"
    if lost.login.get("iss"):
        again = html.escape(f"/lti/login?{urlencode(lost.login)}", quote=True)
        body += (f"<p><a id=new-window href=\"{again}\" target=_blank rel=noopener>Open the exercise in a new "
                 "window</a>: you stay signed in to the course there.</p>")
    return _page(request, "Open the exercise in a new window", body, 403)


async def jwks(request: Request) -> Response:
    from grader.platforms.lti.keys import jwks as key_set

    return JSONResponse(await run_in_threadpool(key_set, _store(request)), headers={"Cache-Control": "max-age=300"})


# ---------------------------------------------------------------- deep linking
def _pick_page(request: Request, launch_id: str) -> HTMLResponse:
    server = request.app.state.server
    csrf = _csrf(request)
    rows = []
    for exercise_id in server.exercises.ids():
        try:
            title = server.exercises.get(exercise_id)[0].title
        except Exception:  # noqa: BLE001 - a broken spec is left out of the list
            continue
        rows.append(f"<tr><td>{html.escape(title)}</td><td><form method=post action=/lti/deep-link>"
                    f"<input type=hidden name=csrf value={html.escape(csrf)}>"
                    f"<input type=hidden name=launch value={html.escape(launch_id)}>"
                    f"<button name=exercise value={html.escape(exercise_id, quote=True)}>Add {html.escape(exercise_id)}"
                    "</button></form></td></tr>")
    response = _page(request, "Add an exercise", f"<table>{''.join(rows)}</table>")
    _set_cookie(request, response, CSRF_COOKIE, csrf)
    return response


async def deep_link(request: Request) -> Response:
    from pylti1p3.deep_link_resource import DeepLinkResource
    from pylti1p3.lineitem import LineItem

    from grader.platforms.lti.protocol import LaunchError, restored_launch

    try:
        params = await _params(request)
    except BadForm as problem:
        return _refused(request, f"a malformed form: {problem}", 400)
    if not _csrf_ok(request, params.get("csrf")):
        return _refused(request, "a stale form: launch the tool again from the course")
    server, store = request.app.state.server, _store(request)
    exercise_id = params.get("exercise", "")
    if exercise_id not in server.exercises.ids():
        return _refused(request, f"no exercise {exercise_id!r} in this course", 404)
    try:  # the launch's id is the instructor's proof: given only to the browser that made the launch
        launched = restored_launch(store, params.get("launch", ""))
        if not launched.is_deep_link_launch():
            raise LaunchError("not a deep-linking launch")
    except LaunchError as problem:
        return _refused(request, f"the course's request has expired or is unknown: {problem}")
    if not _is_staff(launched.get_launch_data()):
        return _refused(request, "only an instructor adds exercises to a course")
    exercise = server.exercises.get(exercise_id)[0]
    resource = (DeepLinkResource().set_url(f"{_base(request)}/lti/launch").set_title(exercise.title)
                .set_custom_params({"exercise": exercise_id})
                .set_lineitem(LineItem().set_score_maximum(exercise.max_score).set_label(exercise.title)
                              .set_resource_id(exercise_id).set_tag("grader")))
    deep = launched.get_deep_link()
    token = await run_in_threadpool(deep.get_response_jwt, [resource])
    settings = launched.get_launch_data()["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"]
    target = str(settings["deep_link_return_url"])
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(target))
    body = (f"<p>{html.escape(exercise.title)} is ready to be added to the course.</p>"
            f"<form method=post action=\"{html.escape(target, quote=True)}\">"
            f"<input type=hidden name=JWT value=\"{html.escape(token, quote=True)}\">"
            "<button id=return>Add it to the course</button></form>")
    return _page(request, "Add an exercise", body, form_to=origin)


# ---------------------------------------------------------------- the exercise, as a launch opens it
def _caller(request: Request) -> Any:
    from grader.server.app import caller_of

    return caller_of(request.app.state.server, request)


async def exercise_page(request: Request) -> Response:
    from grader.server.views import shown as seen_by

    caller = _caller(request)
    server = request.app.state.server
    exercise_id = request.path_params["exercise"]
    if caller is None:
        return _refused(request, "open this exercise from the course in the LMS", 401)
    if exercise_id not in server.exercises.ids():
        return _refused(request, "no such exercise", 404)
    title = server.exercises.get(exercise_id)[0].title
    now = time.time()
    rows, busy = [], False
    for submission in reversed(server.state.list(student=caller.student, exercise=exercise_id)):
        shown = seen_by(submission, caller, server.rules, now, server.private)
        report = shown.get("report") or {}
        busy = busy or submission.status in ("queued", "running")
        score = (f"{report.get('score')} / {report.get('max_score')}" if isinstance(report, dict) and
                 report.get("score") is not None else "")
        rows.append(f"<tr><td><a href=/submissions/{submission.id} target=_blank>#{submission.id}</a></td>"
                    f"<td class=status>{html.escape(submission.status)}</td><td class=score>{html.escape(score)}</td>"
                    f"<td>{html.escape(str(shown.get('submitted_at')))}</td></tr>")
    csrf = _csrf(request)
    body = (f"<p>Signed in as {html.escape(caller.student)}.</p>"
            f"<form method=post enctype=multipart/form-data action=/lti/exercises/{html.escape(exercise_id)}>"
            f"<input type=hidden name=csrf value={html.escape(csrf)}>"
            f"<input type=hidden name=exercise value={html.escape(exercise_id)}>"
            "<label>File <input type=file name=file required></label> <button id=submit>Submit</button></form>"
            f"<div id=submissions-now{' data-live=2' if busy else ''}>"
            "<table id=submissions><tr><th>submission</th><th>status</th><th>score</th><th>sent</th></tr>"
            f"{''.join(rows)}</table></div>")
    if caller.staff:
        body += await run_in_threadpool(_refused_sends, _store(request), exercise_id)
    if busy:  # the table updates itself while grading goes on: the server's own live.js, added only
        body += "<script src=/static/live.js defer></script>"
    response = _page(request, title, body)
    if request.cookies.get(CSRF_COOKIE) != csrf:
        _set_cookie(request, response, CSRF_COOKIE, csrf)
    return response


def _refused_sends(store: Store, exercise_id: str) -> str:
    """For staff on the exercise's page: the scores the LMS has not taken (yet), with its answer; the
    passback keeps trying them. (All of them, every exercise's: /api/lti/status.)"""
    links = {(x.issuer, x.link) for x in store.links() if x.exercise == exercise_id}
    names = {issuer: store.users(issuer) for issuer, _ in links}
    rows = [f"<tr><td>{html.escape(names[issuer].get(subject, subject))}</td><td>{wanted}</td><td>{failures}</td>"
            f"<td class=error>{html.escape(str(error))}</td></tr>"
            for (issuer, link, subject), (_, wanted, failures, error, _) in sorted(store.sends().items())
            if (issuer, link) in links and error]
    if not rows:
        return "<p id=sends>Every score is in the LMS's gradebook.</p>"
    return ("<h2>Scores the LMS has not taken</h2><p>Tried again, less often each time, until it takes them.</p>"
            "<table id=sends><tr><th>student</th><th>score</th><th>tries</th><th>the LMS's answer</th></tr>"
            f"{''.join(rows)}</table>")


async def exercise_submit(request: Request) -> Response:
    from grader.server.app import accept_upload

    caller = _caller(request)
    if caller is None:
        return _refused(request, "open this exercise from the course in the LMS", 401)
    accepted = await accept_upload(request.app.state.server, caller, request,
                                   csrf=lambda sent: _csrf_ok(request, sent))
    if accepted.refusal is not None:
        reason = accepted.refusal.body.decode(errors="replace")
        return _page(request, "Not submitted", f"<p>{html.escape(reason)}</p>", accepted.refusal.status_code)
    return RedirectResponse(f"/lti/exercises/{request.path_params['exercise']}", status_code=303)


# ---------------------------------------------------------------- staff
async def status(request: Request) -> Response:
    from grader.server.app import caller_of, error, unauthorized

    caller = caller_of(request.app.state.server, request)
    if caller is None:
        return unauthorized()
    if not caller.staff:
        return error(403, "the LTI status is for staff")
    store = _store(request)

    def gather() -> dict[str, Any]:
        sends = [{"issuer": i, "link": link, "user_id": s, "sent": v[0], "wanted": v[1], "failures": v[2],
                  "error": v[3], "at": v[4]} for (i, link, s), v in sorted(store.sends().items())]
        return {"platforms": [{"issuer": p.issuer, "client_id": p.client_id, "deployments": list(p.deployments)}
                 for p in store.platforms()],
                "links": [{"issuer": x.issuer, "link": x.link, "context": x.context, "exercise": x.exercise,
                           "lineitem": x.lineitem} for x in store.links()],
                "sends": sends, "failed": [s for s in sends if s["error"]], "roster": store.roster()}

    return JSONResponse(await run_in_threadpool(gather))


async def sync_now(request: Request) -> Response:
    """Staff: send the scores that changed and read the rosters now, not at the next round."""
    from grader.platforms.lti.passback import read_rosters, send_scores
    from grader.server.app import caller_of, error, unauthorized

    server = request.app.state.server
    caller = caller_of(server, request)
    if caller is None:
        return unauthorized()
    if not caller.staff:
        return error(403, "the LTI sync is for staff")
    store = _store(request)
    roster = await run_in_threadpool(read_rosters, store)  # first: a learner it lists may have a score to send
    sent = await run_in_threadpool(send_scores, server, store)
    return JSONResponse({"sent": sent, "rosters": roster})


def _passback(server: Any) -> Any:
    from grader.platforms.lti.passback import Passback

    if getattr(server, "_lti_passback", None) is None:
        server._lti_passback = Passback(server)
        server._lti_passback.start()
    return server._lti_passback


def _has_links(server: Any) -> bool:
    try:
        with server.state.lock:
            return bool(server.state.db.execute("SELECT 1 FROM lti_links LIMIT 1").fetchall())
    except Exception:  # noqa: BLE001 - no table: this server was never launched from an LMS
        return False


# Posted by the LMS's page, another site by design: what vouches for them is the platform's signed token and
# the login's state, not a browser's session, so the server's same-origin rule leaves them be.
CROSS_SITE_PATHS = frozenset({"/lti/login", "/lti/launch"})


def routes(server: Any) -> list[BaseRoute]:
    """The tool's routes. Its sender of scores starts with the first launch, or now if a launch was seen
    before a restart: a server no LMS uses runs no thread and makes no table."""
    if _has_links(server):
        _passback(server)
    return [
        Route("/lti/login", login, methods=["GET", "POST"]),
        Route("/lti/launch", launch, methods=["POST"]),
        Route("/lti/jwks", jwks, methods=["GET"]),
        Route("/lti/deep-link", deep_link, methods=["POST"]),
        Route("/lti/exercises/{exercise}", exercise_page, methods=["GET"]),
        Route("/lti/exercises/{exercise}", exercise_submit, methods=["POST"]),
        Route("/api/lti/status", status, methods=["GET"]),
        Route("/api/lti/sync", sync_now, methods=["POST"]),
    ]
