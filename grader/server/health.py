"""Liveness and readiness, for a container's health check, a load balancer or Kubernetes' probes:

- `GET /healthz`: the process answers (nothing else is asked: a slow database must not get it restarted);
- `GET /readyz`: the database answers a read and at least one grading worker is running or reachable;
  503 with what is missing otherwise, so a proxy sends no student to a server that cannot grade.

Anyone may call them; they say nothing of the course, its students or its submissions."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute

from grader.server.access import ANYONE, route
from grader.server.roles import Caller

NO_STORE = {"Cache-Control": "no-store"}


async def healthz(request: Request, caller: Caller | None) -> Response:
    return JSONResponse({"status": "ok"}, headers=NO_STORE)


async def readyz(request: Request, caller: Caller | None) -> Response:
    server: Any = request.app.state.server
    database, workers = await run_in_threadpool(_probe, server)
    ready = database == "ok" and workers > 0
    return JSONResponse({"status": "ready" if ready else "not ready", "database": database, "workers": workers},
                        status_code=200 if ready else 503, headers=NO_STORE)


def _probe(server: Any) -> tuple[str, int]:
    try:
        server.state.counts()  # one read of the submissions' table
        database = "ok"
    except Exception:  # noqa: BLE001 - any failure is "not ready"; its text may name hosts or paths
        database = "unreachable"
    try:
        workers = int(server.loop.pool.alive())
    except Exception:  # noqa: BLE001 - likewise
        workers = 0
    return database, workers


def health_routes() -> list[BaseRoute]:
    return [route("/healthz", healthz, ["GET"], ANYONE), route("/readyz", readyz, ["GET"], ANYONE)]
