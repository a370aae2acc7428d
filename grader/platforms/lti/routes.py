"""The tool's routes: /lti/login (OIDC third-party login), /lti/launch (resource link and deep linking),
/lti/jwks, the exercise page a launch opens, the instructor's pick, and staff's /api/lti/* (status, sync).

`Tool` is the part `grader serve` is handed from above (app.parts_of): it holds the LTI store and the
passback thread as its own typed fields, and its routes are its methods. It stands on the server's web
layer (grader/server/web.py: callers, cookies, CSRF, pages from the server's templates) and copies none of it.

A launch signs its user in with the server's own session cookie (a token issued for them, never shown), so
every page and API of the server knows them. The LMS shows the tool in an iframe from another site: the
cookies a launch sets are SameSite=None (with Secure; a browser refuses the one without the other), and the
CSRF defence stays the server's double submit, with a cookie of its own that also works framed. Only the
pages here may be framed, and only by the registered platforms' origins."""

from __future__ import annotations

import functools
import threading
import time
from typing import Any
from urllib.parse import urlencode, urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute

from grader.platforms.lti.passback import Passback
from grader.platforms.lti.store import Link, Store, role_of, wanted_name
from grader.server import tokens
from grader.server.actions import accept_upload
from grader.server.views import shown as seen_by
from grader.server.access import ANYONE, INSTRUCTOR, SIGNED_IN, STAFF_ONLY, Access, Guarded
from grader.server.roles import Caller, Role
from grader.server.web import COOKIE, Server, csrf_ok, page, set_cookie

CSRF_COOKIE = "grader_lti_csrf"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DEEP_LINKING = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"


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


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _name_of(body: dict[str, Any]) -> str:
    """The server's name for the launch's user: their LMS login where the LMS sends it (Moodle's, Canvas's),
    else their email, else the LMS's opaque id."""
    ext = body.get(f"{CLAIM}ext") or {}
    custom = body.get(f"{CLAIM}custom") or {}
    return wanted_name([ext.get("user_username"), custom.get("user_login"), custom.get("canvas_user_login_id"),
                        body.get("preferred_username"), body.get("email")], str(body.get("sub")))


def _exam_of(body: dict[str, Any]) -> str:
    """The exam a resource link opens: its custom parameter `exam=ID`, or a target link ending in /exams/ID."""
    custom = body.get(f"{CLAIM}custom") or {}
    if isinstance(custom, dict) and custom.get("exam"):
        return str(custom["exam"])
    path = urlsplit(str(body.get(f"{CLAIM}target_link_uri") or "")).path.rstrip("/")
    head, _, exam = path.rpartition("/exams/")
    return exam if exam and "/" not in exam and not head.endswith("/api") else ""


def _role(body: dict[str, Any]) -> Role:
    return role_of(body.get(f"{CLAIM}roles") or [])


SIGNED_LAUNCH = "the LMS's signed launch (its platform's key, registration, deployment, once-only state)"
ROUTES = (  # path, the Tool's method, HTTP methods, who may call it (grader/server/access.py)
    ("/lti/login", "login", ("GET", "POST"), Access(ANYONE, answer="lti", proof=SIGNED_LAUNCH)),
    ("/lti/launch", "launch", ("POST",), Access(ANYONE, answer="lti", proof=SIGNED_LAUNCH)),
    ("/lti/jwks", "jwks", ("GET",), Access(ANYONE, answer="lti")),
    ("/lti/deep-link", "deep_link", ("POST",),
     Access(ANYONE, answer="lti", proof="an instructor's deep-linking launch, held by this browser")),
    ("/lti/exercises/{exercise}", "exercise_page", ("GET",), Access(SIGNED_IN, answer="lti")),
    ("/lti/exercises/{exercise}", "exercise_submit", ("POST",), Access(SIGNED_IN, answer="lti")),
    ("/api/lti/status", "status", ("GET",), Access(STAFF_ONLY)),
    ("/api/lti/sync", "sync_now", ("POST",), Access(INSTRUCTOR)),
)


class Tool:
    """The LTI 1.3 tool, as a part of one server."""

    # Posted by the LMS's page, another site by design: what vouches for them is the platform's signed token
    # and the login's state, not a browser's session, so the server's same-origin rule leaves them be.
    cross_site_paths = frozenset({"/lti/login", "/lti/launch"})

    def __init__(self, server: Server) -> None:
        self.server = server
        self._passback: Passback | None = None
        self._starting = threading.Lock()

    @functools.cached_property
    def store(self) -> Store:
        """Made at the first LTI request: a server no LMS uses makes no table."""
        return Store(self.server.state)

    def passback(self) -> Passback:
        with self._starting:
            if self._passback is None:
                self._passback = Passback(self.server, self.store)
                self._passback.start()
            return self._passback

    def _has_links(self) -> bool:
        try:
            with self.server.state.lock:
                return bool(self.server.state.db.execute("SELECT 1 FROM lti_links LIMIT 1").fetchall())
        except Exception:  # noqa: BLE001 - no table: this server was never launched from an LMS
            return False

    def start(self) -> None:
        """The sender of scores starts with the first launch, or now if a launch was seen before a restart:
        a server no LMS uses runs no thread and makes no table."""
        if self._has_links():
            self.passback()

    def routes(self) -> list[BaseRoute]:
        return [Guarded(path, getattr(self, name), methods, access, self._refuse if access.answer == "lti" else None)
                for path, name, methods, access in ROUTES]

    # ------------------------------------------------------------ pages
    def _page(self, request: Request, template: str, status: int = 200, form_to: str = "",
              **values: Any) -> HTMLResponse:
        """A page of the tool's own: framed only by the platforms, forms only to us (or to the platform's
        deep-linking return), its CSRF cookie one that works framed."""
        origins = sorted({f"{p.scheme}://{p.netloc}" for p in (urlsplit(x.login_url) for x in self.store.platforms())})
        csp = (f"default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; "
               f"form-action 'self' {form_to}".rstrip() +
               f"; frame-ancestors 'self' {' '.join(origins) or chr(39) + 'none' + chr(39)}; base-uri 'none'")
        headers = {"Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff",
                   "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
        return page(request, template, status, headers=headers, csrf_cookie=CSRF_COOKIE, **values)

    def _refused(self, request: Request, reason: str, status: int = 403, title: str = "The launch was refused",
                 again: str = "") -> HTMLResponse:
        return self._page(request, "lti_message.html.j2", status, title=title, message=reason, again=again)

    def _refuse(self, request: Request, status: int, reason: str) -> HTMLResponse:
        return self._refused(request, reason, status, "This was refused" if status != 404 else "Not found")

    def _lti_request(self, request: Request, params: dict[str, str]) -> Any:
        from grader.platforms.lti.protocol import LtiRequest

        return LtiRequest(params, dict(request.cookies), self.server.secure_cookies)

    # ------------------------------------------------------------ the protocol
    async def login(self, request: Request, caller: Caller | None) -> Response:
        from grader.platforms.lti.protocol import LaunchError, login_redirect

        try:
            params = await _params(request)
        except BadForm as problem:
            return self._refused(request, f"a malformed login: {problem}", 400)
        try:
            location, cookies = await run_in_threadpool(login_redirect, self.store, self._lti_request(request, params),
                                                        f"{_base(request)}/lti/launch")
        except LaunchError as problem:
            return self._refused(request, f"The login could not begin: {problem}", 400)
        response = RedirectResponse(location, status_code=302)
        for name, (value, seconds) in cookies.to_set.items():
            set_cookie(request, response, name, value, "none", seconds)
        return response

    async def launch(self, request: Request, caller: Caller | None) -> Response:
        from grader.platforms.lti.protocol import CookieLost, LaunchError, validated_launch

        try:
            params = await _params(request)
        except BadForm as problem:
            return self._refused(request, f"a malformed launch: {problem}", 400)
        store, server = self.store, self.server
        try:
            checked = await run_in_threadpool(validated_launch, store, self._lti_request(request, params))
        except CookieLost as lost:
            return self._new_window(request, lost)
        except LaunchError as problem:
            return self._refused(request, f"This launch was refused: {problem}")
        body = checked.get_launch_data()
        issuer, subject, role = body["iss"], str(body.get("sub") or ""), _role(body)
        if not subject:
            return self._refused(request, "an anonymous launch: the tool needs to know who submits")
        course = body.get(f"{CLAIM}context") if isinstance(body.get(f"{CLAIM}context"), dict) else {}
        context = str(course.get("id") or "")
        if not context:
            return self._refused(request, "the launch names no course of the LMS (its context): the tool serves "
                                          "one course and needs to know which")
        if not await run_in_threadpool(store.bind, issuer, context):
            title = course.get("title") if isinstance(course.get("title"), str) else context
            return self._refused(request, f"this server serves another course of the LMS, not {title}: ask the "
                                          "instructor of this course for a tool of its own (or to bind this course to "
                                          "this server: grader serve lti bind)")
        name = store.user(issuer, subject, _name_of(body), role)
        store.save_member(issuer, context, subject, body.get("name"), body.get("email"), body.get(f"{CLAIM}roles") or [])
        # A browser that launched as this person before keeps its session: a token per launch would fill the
        # table with tokens of the same person.
        token = request.cookies.get(COOKIE, "")
        held = tokens.caller_of(server.state, token)
        if held is None or held.student != name or held.role is not role:
            token = tokens.issue(server.state, name, role)
        if checked.is_deep_link_launch():
            if role is not Role.INSTRUCTOR:
                return self._refused(request, "only an instructor adds exercises to a course")
            response: Response = self._pick_page(request, checked.get_launch_id())
        elif checked.is_resource_launch() and _exam_of(body):  # an exam's link: into the exam's page
            exam = _exam_of(body)
            if exam not in server.rules.exams.exams():
                return self._refused(request, f"this link names no exam of this course ({exam[:80]})", 404)
            response = RedirectResponse(f"/exams/{exam}", status_code=303)
        elif checked.is_resource_launch():
            custom = body.get(f"{CLAIM}custom") or {}
            exercise = str(custom.get("exercise") or request.query_params.get("exercise", ""))
            if exercise not in server.exercises.ids():
                return self._refused(request, f"this link names no exercise of this course ({exercise or 'none'})", 404)
            ags, nrps = body.get(AGS_CLAIM) or {}, body.get(NRPS_CLAIM) or {}
            link = str((body.get(f"{CLAIM}resource_link") or {}).get("id", ""))
            store.save_link(Link(issuer, checked.get_client_id(), link, context, exercise, ags.get("lineitem"),
                                 tuple(ags.get("scope") or ()), nrps.get("context_memberships_url")))
            response = RedirectResponse(f"/lti/exercises/{exercise}", status_code=303)
            self.passback().wake()  # a new link or member may have a score waiting
        else:
            return self._refused(request, "this kind of LTI message is not one the tool answers", 400)
        # A staff session is never SameSite=None: the staff API is not to be reachable by another site's
        # request riding on a cookie.
        set_cookie(request, response, COOKIE, token, "none" if role is Role.STUDENT else "lax")
        return response

    def _new_window(self, request: Request, lost: Any) -> HTMLResponse:
        """The launch cannot be tied to this browser inside the LMS's page: its cookies did not come back (a
        browser that blocks third-party cookies, as Chromium and Safari do by default). Nothing of the launch
        is used; a link begins the same login again in a window of its own, where the tool is the site the
        browser shows and its cookies are first-party. The link holds only what the LMS's login form held."""
        again = f"/lti/login?{urlencode(lost.login)}" if lost.login.get("iss") else ""
        return self._refused(request, f"{lost}, so the launch could not sign you in here (the login's state).",
                             403, "Open the exercise in a new window", again)

    async def jwks(self, request: Request, caller: Caller | None) -> Response:
        from grader.platforms.lti.keys import jwks as key_set

        return JSONResponse(await run_in_threadpool(key_set, self.store), headers={"Cache-Control": "max-age=300"})

    # ------------------------------------------------------------ deep linking
    def _pick_page(self, request: Request, launch_id: str) -> HTMLResponse:
        choices = []
        for exercise_id in self.server.exercises.ids():
            try:
                choices.append((exercise_id, self.server.exercises.get(exercise_id)[0].title))
            except Exception:  # noqa: BLE001 - a broken spec is left out of the list
                continue
        return self._page(request, "lti_pick.html.j2", choices=choices, launch=launch_id)

    async def deep_link(self, request: Request, caller: Caller | None) -> Response:
        from pylti1p3.deep_link_resource import DeepLinkResource
        from pylti1p3.lineitem import LineItem

        from grader.platforms.lti.protocol import LaunchError, restored_launch

        try:
            params = await _params(request)
        except BadForm as problem:
            return self._refused(request, f"a malformed form: {problem}", 400)
        if not csrf_ok(request, params.get("csrf"), CSRF_COOKIE):
            return self._refused(request, "a stale form: launch the tool again from the course")
        exercise_id = params.get("exercise", "")
        if exercise_id not in self.server.exercises.ids():
            return self._refused(request, f"no exercise {exercise_id!r} in this course", 404)
        try:  # the launch's id is the instructor's proof: given only to the browser that made the launch
            launched = restored_launch(self.store, params.get("launch", ""))
            if not launched.is_deep_link_launch():
                raise LaunchError("not a deep-linking launch")
        except LaunchError as problem:
            return self._refused(request, f"the course's request has expired or is unknown: {problem}")
        if _role(launched.get_launch_data()) is not Role.INSTRUCTOR:
            return self._refused(request, "only an instructor adds exercises to a course")
        exercise = self.server.exercises.get(exercise_id)[0]
        resource = (DeepLinkResource().set_url(f"{_base(request)}/lti/launch").set_title(exercise.title)
                    .set_custom_params({"exercise": exercise_id})
                    .set_lineitem(LineItem().set_score_maximum(exercise.max_score).set_label(exercise.title)
                                  .set_resource_id(exercise_id).set_tag("grader")))
        token = await run_in_threadpool(launched.get_deep_link().get_response_jwt, [resource])
        target = str(launched.get_launch_data()[DEEP_LINKING]["deep_link_return_url"])
        return self._page(request, "lti_return.html.j2", form_to="{0.scheme}://{0.netloc}".format(urlsplit(target)),
                          title=exercise.title, target=target, jwt=token)

    # ------------------------------------------------------------ the exercise, as a launch opens it
    async def exercise_page(self, request: Request, caller: Caller) -> Response:
        server = self.server
        exercise_id = request.path_params["exercise"]
        if exercise_id not in server.exercises.ids():
            return self._refused(request, "no such exercise", 404)
        title = server.exercises.get(exercise_id)[0].title
        now = time.time()
        rows, busy = [], False
        for submission in reversed(server.state.list(student=caller.student, exercise=exercise_id)):
            shown = seen_by(submission, caller, server.rules, now, server.private)
            report = shown.get("report") or {}
            busy = busy or submission.status in ("queued", "running")
            score = (f"{report.get('score')} / {report.get('max_score')}" if isinstance(report, dict) and
                     report.get("score") is not None else "")
            rows.append({"id": submission.id, "status": submission.status, "score": score,
                         "sent": str(shown.get("submitted_at"))})
        sends = await run_in_threadpool(self._refused_sends, exercise_id) if caller.staff else None
        return self._page(request, "lti_exercise.html.j2", title=title, exercise=exercise_id, who=caller.student,
                          rows=rows, busy=busy, sends=sends)

    def _refused_sends(self, exercise_id: str) -> list[tuple[str, object, int, str]]:
        """For staff on the exercise's page: the scores the LMS has not taken (yet), with its answer; the
        passback keeps trying them. (All of them, every exercise's: /api/lti/status.)"""
        store = self.store
        links = {(x.issuer, x.link) for x in store.links() if x.exercise == exercise_id}
        names = {issuer: store.users(issuer) for issuer, _ in links}
        return [(names[issuer].get(subject, subject), wanted, failures, str(error))
                for (issuer, link, subject), (_, wanted, failures, error, _) in sorted(store.sends().items())
                if (issuer, link) in links and error]

    async def exercise_submit(self, request: Request, caller: Caller) -> Response:
        accepted = await accept_upload(self.server, caller, request,
                                       csrf=lambda sent: csrf_ok(request, sent, CSRF_COOKIE))
        if accepted.refusal is not None:
            reason = bytes(accepted.refusal.body).decode(errors="replace")
            return self._refused(request, reason, accepted.refusal.status_code, "Not submitted")
        return RedirectResponse(f"/lti/exercises/{request.path_params['exercise']}", status_code=303)

    # ------------------------------------------------------------ staff
    async def status(self, request: Request, caller: Caller) -> Response:
        store = self.store

        def gather() -> dict[str, Any]:
            sends = [{"issuer": i, "link": link, "user_id": s, "sent": v[0], "wanted": v[1], "failures": v[2],
                      "error": v[3], "at": v[4]} for (i, link, s), v in sorted(store.sends().items())]
            return {"platforms": [{"issuer": p.issuer, "client_id": p.client_id, "deployments": list(p.deployments)}
                                  for p in store.platforms()],
                    "links": [{"issuer": x.issuer, "link": x.link, "context": x.context, "exercise": x.exercise,
                               "lineitem": x.lineitem} for x in store.links()],
                    "sends": sends, "failed": [s for s in sends if s["error"]], "roster": store.roster()}

        return JSONResponse(await run_in_threadpool(gather))

    async def sync_now(self, request: Request, caller: Caller) -> Response:
        """Staff: send the scores that changed and read the rosters now, not at the next round."""
        from grader.platforms.lti.passback import read_rosters, send_scores

        roster = await run_in_threadpool(read_rosters, self.store)  # first: a learner it lists may have a score
        sent = await run_in_threadpool(send_scores, self.server, self.store)
        return JSONResponse({"sent": sent, "rosters": roster})
