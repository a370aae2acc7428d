"""The exams' part of the API's OpenAPI description (grader/server/exam_routes.py)."""

from __future__ import annotations

from typing import Any

from grader.server.openapi_drafts import WHEN
from grader.server.openapi_parts import errors, json_answer, query

MAYBE_WHEN = {"type": ["string", "null"], "description": "ISO 8601, UTC, by the server's clock; null: not yet"}
EXAM = {"type": "object", "required": ["id", "title", "server_time", "phase", "opens", "closes", "minutes",
                                       "time_factor", "feedback", "results_at", "started_at", "ends_at",
                                       "seconds_left", "test_run", "exercises"], "properties": {
    "id": {"type": "string"}, "title": {"type": "string"}, "server_time": WHEN,
    "phase": {"enum": ["not-open", "open", "running", "ended", "closed"]},
    "opens": WHEN, "closes": WHEN,
    "minutes": {"type": "number", "description": "the caller's own time, their time factor applied"},
    "time_factor": {"type": "number"}, "feedback": {"enum": ["visible", "none"]}, "results_at": WHEN,
    "started_at": MAYBE_WHEN, "ends_at": MAYBE_WHEN,
    "seconds_left": {"type": ["number", "null"], "minimum": 0,
                     "description": "by the server's clock: a page counts it down on its own monotonic clock"},
    "test_run": {"type": "boolean", "description": "staff trying the exam: never in the gradebook"},
    "exercises": {"type": "array", "items": {"type": "string"}, "description": "empty until the caller starts"}}}
EVENT = {"type": "object", "required": ["at", "what"], "properties": {
    "at": WHEN, "what": {"enum": ["opened", "save", "refused", "disconnect", "address", "submitted", "ended"]}},
    "additionalProperties": True}
LOG = {"type": "object", "required": ["exam", "students"], "properties": {
    "exam": {"type": "string"},
    "students": {"type": "array", "items": {"type": "object", "required": ["student", "events"], "properties": {
        "student": {"type": "string"}, "started_at": MAYBE_WHEN, "ends_at": MAYBE_WHEN,
        "test_run": {"type": "boolean"}, "events": {"type": "array", "items": EVENT}}}}}}


def exam_paths() -> dict[str, Any]:
    path = [{"name": "exam", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 200}}]
    return {
        "/api/exams": {"get": {
            "operationId": "exams", "summary": "The course's exams as the caller sits them (staff: and the "
                                               "problems of broken exam files).",
            "responses": {"200": json_answer({"type": "object", "required": ["exams", "server_time"], "properties": {
                "exams": {"type": "array", "items": EXAM}, "server_time": WHEN,
                "problems": {"type": "array", "items": {"type": "string"}}}}, "the exams"), **errors(401)}}},
        "/api/exams/{exam}": {"get": {
            "operationId": "exam", "summary": "An exam, the server's time and the caller's time left.",
            "parameters": path, "responses": {"200": json_answer(EXAM, "the exam"), **errors(401, 404)}}},
        "/api/exams/{exam}/start": {"post": {
            "operationId": "start_exam", "summary": "Start the caller's time (their first opening; again: their "
                                                    "start as it was). Staff: a test run, at any time.",
            "parameters": path,
            "responses": {"200": json_answer(EXAM, "started"),
                          "403": json_answer({"$ref": "#/components/schemas/error"},
                                             "before the window, after it, or from outside the exam's addresses"),
                          **errors(401, 404)}}},
        "/api/exams/{exam}/log": {"get": {
            "operationId": "exam_log", "summary": "Staff: each student's log (opened, saves, refusals, "
                                                  "disconnects, address changes, submissions).",
            "parameters": [*path, query("student", {"type": "string"}, "one student's log only")],
            "responses": {"200": json_answer(LOG, "the log"), **errors(401, 403, 404, 422)}}},
    }
