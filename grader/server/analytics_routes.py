"""What students get wrong, on the server: `GET /api/analytics?exercise=ID` (JSON, or one CSV table) and the
staff's page of an exercise (/staff/analytics/ID). Both read the one engine (grader/analytics) over the
server's stored reports, as staff see them (hidden tests included): staff only.

The mutants are named when the course holds what `grader validate --mutants --format json` wrote, as
`mutants.json` beside its exercises folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from grader.analytics.export import tables
from grader.analytics.handins import Handin
from grader.outputs.cells import csv_text
from grader.server.access import STAFF_ONLY, route
from grader.server.roles import Caller
from grader.server.web import (
    Reply,
    Server,
    error,
    exercise_in_path,
    not_found,
    page,
    server_of,
)

MUTANTS_FILE = "mutants.json"  # in the course's folder, beside exercises/
FORMATS = ("json", "csv")
TABLES = ("exercises", "tests", "wrong-answers", "failure-patterns", "mutants")


def handins_of(server: Server, exercise: str) -> list[Handin]:
    """Every graded submission of the exercise, its report as staff see it, oldest first."""
    from grader.analytics.reports import staff_report

    return [Handin(s.student, s.exercise, s.submitted_at, staff_report(s.report), str(s.id))
            for s in server.state.list(exercise=exercise, status="done") if s.report is not None]


def mutants_of(server: Server) -> dict[str, list[Any]]:
    """The course's mutants, when `validate --mutants` wrote them there; none when the file is absent or not
    validate's (a page of analytics never fails for it)."""
    from grader.analytics.mutants import load_mutants
    from grader.errors import UsageError

    path: Path = server.exercises.course.exercises_dir.parent / MUTANTS_FILE
    if not path.is_file():
        return {}
    try:
        return load_mutants(path)
    except UsageError:
        return {}


def exercise_entry(server: Server, exercise: str) -> dict[str, object]:
    """The exercise's analytics (grader/schemas/analytics.schema.json's exercise), empty when nobody handed it in."""
    from grader.analytics import exercise_analytics
    from grader.analytics.engine import empty_exercise

    found = exercise_analytics(handins_of(server, exercise), exercise, mutants=mutants_of(server))
    return found if found is not None else empty_exercise(exercise)


async def get_analytics(request: Request, caller: Caller) -> Response:
    """GET /api/analytics?exercise=ID[&format=csv&table=NAME]."""
    server = server_of(request)
    query = request.query_params
    exercise = query.get("exercise")
    if not exercise:
        return error(422, "exercise is needed: GET /api/analytics?exercise=ID")
    kind, table = query.get("format", "json"), query.get("table", "tests")
    if kind not in FORMATS:
        return error(422, f"format is one of {', '.join(FORMATS)}")
    if table not in TABLES:
        return error(422, f"table is one of {', '.join(TABLES)}")
    if exercise not in server.exercises.ids():
        return error(404, "no such exercise")
    entry = await run_in_threadpool(exercise_entry, server, exercise)
    if kind == "json":
        return Reply(entry)
    rows = tables({"exercises": [entry]})[f"{table}.csv"]
    return Response(csv_text(rows), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{table}.csv"'})


async def analytics_page(request: Request, caller: Caller) -> Response:
    """/staff/analytics/ID: per test, the shares failing, the wrong answers, the first pass, the mutants."""
    server = server_of(request)
    exercise = exercise_in_path(request)
    if exercise is None:
        return not_found(request, "No such exercise.")
    entry = await run_in_threadpool(exercise_entry, server, exercise)
    return page(request, "staff_analytics.html.j2", exercise=exercise, entry=entry)


def analytics_routes() -> list[BaseRoute]:
    return [
        route("/api/analytics", get_analytics, ["GET"], STAFF_ONLY),
        route("/staff/analytics/{exercise}", analytics_page, ["GET"], STAFF_ONLY, answer="page"),
    ]
