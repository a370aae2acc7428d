"""Who may call each route, declared once: every route of the server is a `Guarded` route carrying its
`Access` (the roles it admits, whose things it reaches, how it answers a refusal). The guard reads the
caller, refuses before the handler runs and hands the handler its caller; no handler checks a role. The
authorization matrix test (tests/server/test_access_matrix.py) and docs/ta.md's table (`table()`) read the
same declarations from the app's route table (PrairieLearn's authz middlewares, Starlette's `requires`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Literal

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from grader.records import record
from grader.server.inputs import submission_id
from grader.server.roles import STAFF, Caller, Role
from grader.server.web import Reply, caller_of, changer_of, error, message, not_found, page, server_of, unauthorized

ANYONE: frozenset[Role] = frozenset()  # signed in or not
SIGNED_IN = frozenset(Role)
STAFF_ONLY = STAFF
INSTRUCTOR = frozenset({Role.INSTRUCTOR})
STUDENT = frozenset({Role.STUDENT})
Answer = Literal["api", "page", "lti"]  # a refusal as JSON, as one of the server's pages, as a page in the LMS
Owned = Literal["", "submission", "request"]
SAFE = ("GET", "HEAD", "OPTIONS")


@record
class Access:
    who: frozenset[Role]  # ANYONE: no sign-in needed
    owner: Owned = ""  # a student reaches the submission or regrade request named by `number` only if theirs
    answer: Answer = "api"
    proof: str = ""  # what else the handler checks that no role gives (the LMS's signed launch)

    def admits(self, caller: Caller | None) -> bool:
        return not self.who or (caller is not None and caller.role in self.who)

    def names(self) -> str:
        """Who may call, as a refusal says it: "This page is for staff." """
        return {ANYONE: "anyone", SIGNED_IN: "anyone signed in", STAFF: "staff", INSTRUCTOR: "the instructor",
                STUDENT: "students"}.get(self.who, " and ".join(sorted(self.who)))


Refuse = Callable[[Request, int, str], Response]  # a refusal (status, reason) as a part answers it


class Guarded(Route):
    """A route and its Access. The endpoint is called as `endpoint(request, caller)`; `refuse`: how a part
    handed in from above answers a refusal in its own pages (the LTI tool's, framed by the LMS)."""

    def __init__(self, path: str, endpoint: Callable[..., Awaitable[Response]], methods: Iterable[str],
                 access: Access, refuse: Refuse | None = None) -> None:
        self.access = access

        async def guarded(request: Request) -> Response:
            caller = await _admitted(request, access, refuse)
            if isinstance(caller, Response):
                return caller
            return await endpoint(request, caller)

        guarded.__name__ = guarded.__qualname__ = getattr(endpoint, "__name__", "guarded")
        super().__init__(path, guarded, methods=list(methods))


def route(path: str, endpoint: Callable[..., Awaitable[Response]], methods: Iterable[str], who: frozenset[Role],
          owner: Owned = "", answer: Answer = "api", proof: str = "") -> Guarded:
    return Guarded(path, endpoint, methods, Access(who, owner, answer, proof))


async def _admitted(request: Request, access: Access, refuse: Refuse | None) -> Caller | None | Response:
    server = server_of(request)
    if access.answer == "api" and request.method not in SAFE and access.who:
        changer = changer_of(server, request)  # an API change: a Bearer token, never a cookie
        if isinstance(changer, Reply):
            return changer
        caller: Caller | None = changer
    else:
        caller = caller_of(server, request)
    if not access.who:
        return caller
    if caller is None:
        signed_out = "open this exercise from the course in the LMS" if access.answer == "lti" else \
            "a valid token is needed: Authorization: Bearer TOKEN"
        return _refusal(request, access, refuse, 401, signed_out)
    if caller.role not in access.who:
        return _refusal(request, access, refuse, 403, f"this is for {access.names()}")
    if access.owner and not caller.staff and not _owns(request, access.owner, caller):
        thing = "submission" if access.owner == "submission" else "regrade request"
        return _refusal(request, access, refuse, 404, f"no such {thing}")  # another's: as if it did not exist
    return caller


def _owns(request: Request, owner: Owned, caller: Caller) -> bool:
    state = server_of(request).state
    number = submission_id(request.path_params.get("number", ""))
    found = None if number is None else state.get(number) if owner == "submission" else state.request(number)
    return found is not None and found.student == caller.student


def _refusal(request: Request, access: Access, refuse: Refuse | None, status: int, reason: str) -> Response:
    if refuse is not None:
        return refuse(request, status, reason)
    if access.answer == "api":
        return unauthorized() if status == 401 else error(status, reason)
    if access.answer == "lti":
        return message(request, status, "Not allowed" if status != 404 else "Not found", reason)
    if status == 401:  # a page asks who you are
        return page(request, "login.html.j2", 401, error="")
    if status == 404:
        return not_found(request, f"{reason[0].upper()}{reason[1:]}.")
    return message(request, 403, "Staff only" if access.who <= STAFF else "Not allowed", f"This page is for {access.names()}.")


def declared(routes: Iterable[BaseRoute]) -> list[tuple[str, str, Access]]:
    """(path, method, access) of every route; a route with no declaration raises (the matrix test's guard)."""
    found = []
    for each in routes:
        if not isinstance(each, Guarded):
            raise TypeError(f"the route {getattr(each, 'path', each)!r} declares no Access: make it a Guarded route")
        for method in sorted((each.methods or set()) - {"HEAD"}):
            found.append((each.path, method, each.access))
    return found


def table(routes: Iterable[BaseRoute]) -> str:
    """docs/ta.md's table: each route, who may call it, and whose things it reaches."""
    marks = {True: "yes", False: "—"}
    lines = ["| route | anyone | student | TA | instructor | notes |", "| --- | --- | --- | --- | --- | --- |"]
    for path, method, access in declared(routes):
        cells = [marks[not access.who]] + [marks[access.admits(Caller("x", role))]
                                            for role in (Role.STUDENT, Role.TA, Role.INSTRUCTOR)]
        notes = "; ".join(filter(None, [f"a student: only their own {access.owner}" if access.owner else "",
                                        access.proof]))
        lines.append(f"| `{method} {path}` | " + " | ".join(cells) + f" | {notes} |")
    return "\n".join(lines) + "\n"


