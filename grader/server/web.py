"""The lower web layer every route module stands on: the typed `Server` and what a handler needs of a request
(its server, its caller, a JSON error, a page, a cookie, the CSRF check). It imports no route module, and
`app.py` (which assembles the routes) imports it, never the other way round (FastAPI's dependencies, Flask's
`auth.py`, Datasette's `views/base.py`)."""

from __future__ import annotations

import asyncio
import functools
import hmac
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute

from grader.server import inputs, tokens
from grader.server.inputs import Refused
from grader.server.queue import Exercises, GradingLoop
from grader.server.rules import CourseRules
from grader.server.state import State
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
    # origin is what tells this site's forms from another's (guards.SameOrigin).
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


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

    @functools.cached_property
    def private(self) -> tuple[str, ...]:
        """The server's folders (its state, the course's), which no text shown to a student names."""
        folders = (self.state.folder, self.exercises.course.exercises_dir.parent)
        return tuple(sorted({str(f) for f in folders} | {str(f.resolve()) for f in folders}, key=len, reverse=True))


class Part(Protocol):
    """An add-on handed to `app.make_app` from above (the LTI tool): its routes, and the paths another site
    may post to (vouched for by the add-on itself, not by a browser's origin)."""

    cross_site_paths: frozenset[str]

    def routes(self) -> list[BaseRoute]: ...

    def start(self) -> None:
        """Begin what the part runs beside the server (the LTI tool's passback, once an LMS linked it)."""


def server_of(request: Request) -> Server:
    server: Server = request.app.state.server
    return server


def exercise_in_path(request: Request) -> str | None:
    """The path's {exercise} when it names one of the course's exercises; None when it names none."""
    exercise = request.path_params["exercise"]
    return str(exercise) if exercise in server_of(request).exercises.ids() else None


# ---------------------------------------------------------------- JSON replies
class Reply(JSONResponse):
    """Every JSON reply: strict (no NaN or Infinity, which no JSON parser need take) and ASCII."""

    def render(self, content: Any) -> bytes:
        return inputs.strict_json(content).encode("ascii")


def error(status: int, message: str, **headers: str) -> Reply:
    return Reply({"error": message}, status_code=status, headers=headers or None)


def refused(problem: Refused) -> Reply:
    return error(problem.status, problem.reason)


def unauthorized() -> Reply:
    return error(401, "a valid token is needed: Authorization: Bearer TOKEN", **{"WWW-Authenticate": "Bearer"})


# ---------------------------------------------------------------- who calls
def _bearer(request: Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def session_token(request: Request) -> str | None:
    return request.cookies.get(COOKIE)


def caller_of(server: Server, request: Request) -> Caller | None:
    """Who reads: a bearer token, else a signed-in browser's cookie (reads only: see changer_of)."""
    token = _bearer(request)
    return tokens.caller_of(server.state, token if token is not None else session_token(request))


def changer_of(server: Server, request: Request) -> Caller | Reply:
    """Who changes something through the API: a bearer token only. A cookie goes with any request a page
    of another site (or of another host of this site: SameSite does not stop those) makes the browser
    send, a text/plain form included; an Authorization header never does. The pages' forms have their
    own CSRF tokens."""
    token = _bearer(request)
    if token is None and session_token(request):
        return error(403, "the API changes nothing for a sign-in cookie: send Authorization: Bearer TOKEN "
                          "(the pages have forms of their own)")
    caller = tokens.caller_of(server.state, token)
    return unauthorized() if caller is None else caller


# ---------------------------------------------------------------- pages, cookies, CSRF
@functools.cache
def environment() -> Environment:
    """This folder's templates, and the batch report's (grader/outputs/html): the parts both draw alike."""
    from grader.outputs.html import TEMPLATES as SHARED
    from grader.outputs.html import shared
    from grader.server.views import iso

    env = Environment(loader=FileSystemLoader([TEMPLATES, SHARED]), autoescape=True, undefined=StrictUndefined)
    shared(env)
    env.filters["when"] = iso
    env.filters["points"] = points
    return env


def points(score: object) -> str:
    """A score as a person reads it: 6.4, not 6.3999999999999995."""
    return f"{round(score, 2):g}" if isinstance(score, (int, float)) and not isinstance(score, bool) else "—"


def page(request: Request, template: str, status: int = 200, headers: dict[str, str] | None = None,
         csrf_cookie: str = CSRF_COOKIE, **values: Any) -> HTMLResponse:
    """A template rendered with the form's CSRF token (`csrf`), set in its cookie when the browser has none."""
    csrf = request.cookies.get(csrf_cookie) or secrets.token_urlsafe(24)
    html = environment().get_template(template).render(csrf=csrf, **values)
    # A lone surrogate (a student's text) is no UTF-8: written as its escape rather than failing the page.
    response = HTMLResponse(html.encode("utf-8", "backslashreplace"), status_code=status,
                            headers=headers if headers is not None else HEADERS)
    if request.cookies.get(csrf_cookie) != csrf:
        set_cookie(request, response, csrf_cookie, csrf, "strict" if csrf_cookie == CSRF_COOKIE else "none")
    return response


SameSite = Literal["strict", "lax", "none"]


def set_cookie(request: Request, response: Response, name: str, value: str, samesite: SameSite = "strict",
               seconds: int | None = None) -> None:
    """An HttpOnly cookie for the whole site. SameSite=None needs Secure (browsers refuse it without): on a
    server with plain HTTP cookies (--insecure-cookies), Lax instead."""
    secure = server_of(request).secure_cookies
    if samesite == "none" and not secure:
        samesite = "lax"
    response.set_cookie(name, value, max_age=seconds, httponly=True, samesite=samesite, secure=secure, path="/")


def csrf_ok(request: Request, sent: object, cookie: str = CSRF_COOKIE) -> bool:
    """A form's CSRF token equals the one in its own cookie (double submit), compared in constant time."""
    expected = request.cookies.get(cookie)
    return bool(expected) and isinstance(sent, str) and hmac.compare_digest(expected.encode(), sent.encode())  # type: ignore[union-attr]


def message(request: Request, status: int, title: str, text: str) -> HTMLResponse:
    return page(request, "message.html.j2", status, title=title, message=text)


def forbidden(request: Request) -> HTMLResponse:
    return message(request, 403, "Not allowed",
                   "The form was stale or not from this site: go back, reload the page and try again.")


def not_found(request: Request, text: str) -> HTMLResponse:
    return message(request, 404, "Not found", text)
