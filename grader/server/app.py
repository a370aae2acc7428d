"""The HTTP side of `grader serve`, assembled: the route modules' routes (the JSON API, the pages, reviews,
analytics) and the add-ons handed in from above (the LTI tool), under the guards (guards.py).

Starlette on uvicorn: an ASGI server answers fifty clients that wait on their reports without a thread each,
and Starlette's multipart parsing (python-multipart, streaming) takes limits on files, fields and part
sizes; the body itself is bounded first (guards.BoundedBody), before any of it is parsed. This module only
assembles: the routes stand on the lower web layer (web.py) and import nothing from here."""

from __future__ import annotations

from typing import cast

from starlette.applications import Starlette
from starlette.routing import BaseRoute
from starlette.types import ASGIApp

from grader.server.access import table
from grader.server.analytics_routes import analytics_routes
from grader.server.api_routes import api_routes
from grader.server.assets import asset_routes
from grader.server.draft_routes import draft_routes
from grader.server.guards import BoundedBody, SameOrigin
from grader.server.pages import page_routes
from grader.server.review_routes import review_routes
from grader.server.web import Changes, Part, Server
from grader.server.work_routes import work_routes

__all__ = ["Changes", "Server", "access_table", "make_app", "parts_of", "routes_of"]

MULTIPART_OVERHEAD = 64 * 1024  # the form's boundaries and small fields, beyond the file itself


def parts_of(server: Server) -> list[Part]:
    """The add-ons every server carries: the LTI 1.3 tool (the LMS's launches, deep linking, the JWKS), and
    the exams' desk (their routes, and the sweep that grades a student's last saved work at their end)."""
    from grader.platforms.lti.routes import Tool
    from grader.server.exam_routes import ExamDesk

    return [Tool(server), ExamDesk(server)]


def routes_of(parts: list[Part]) -> list[BaseRoute]:
    # reviews' pages before page_routes' /staff/students/{path}
    return [*api_routes(), *draft_routes(), *analytics_routes(), *review_routes(), *page_routes(),
            *work_routes(), *asset_routes(),
            *(route for part in parts for route in part.routes())]


def make_app(server: Server, parts: list[Part] | None = None) -> ASGIApp:
    parts = parts_of(server) if parts is None else parts
    app = Starlette(routes=routes_of(parts))
    app.state.server = server
    server.loop.on_change = server.changes.changed
    for part in parts:
        part.start()
    cross_site = frozenset(path for part in parts for path in part.cross_site_paths)
    return SameOrigin(BoundedBody(app, server.max_upload + MULTIPART_OVERHEAD), cross_site)


def access_table() -> str:
    """docs/ta.md's table of who may call what, from the routes' declarations (`python -m grader.server.app`).
    No server is needed: the routes are built, never called."""
    return table(routes_of(parts_of(cast(Server, None))))


if __name__ == "__main__":
    print(access_table(), end="")
