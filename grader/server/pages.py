"""The pages (server-rendered; filled in below)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import BaseRoute

COOKIE = "grader_session"


def session_token(request: Request) -> str | None:
    return request.cookies.get(COOKIE)


def page_routes() -> list[BaseRoute]:
    return []
