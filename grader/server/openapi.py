"""The JSON API's description as OpenAPI 3.1, served at GET /api/openapi.json: what each route takes (path,
query, body) and every answer it may give. The bodies' shapes are grader/schemas/server-api.schema.json's
(JSON Schema 2020-12, which OpenAPI 3.1 speaks as it is): one contract, written once. Built from data only:
no web framework is imported here, and a test fuzzes a live server against it (tests/server/test_fuzz_api.py)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from grader.outputs import NEEDS_ROSTER, SERVED_GRADEBOOKS
from grader.server.openapi_drafts import draft_paths
from grader.server.openapi_exams import exam_paths
from grader.server.openapi_lti import lti_paths
from grader.server.openapi_parts import WHY, errors, json_answer, query, ref
from grader.server.openapi_reviews import review_paths

API_SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "server-api.schema.json"
# GET /api/analytics answers an exercise of `grader analytics --format json`: its schema's $defs join the
# components, named analytics_<def>.
ANALYTICS_SCHEMA = API_SCHEMA.with_name("analytics.schema.json")
ANALYTICS_TABLES = ("exercises", "tests", "wrong-answers", "failure-patterns", "mutants")
STATUSES = ("queued", "running", "done", "error")



def _components() -> dict[str, Any]:
    """server-api.schema.json's $defs, their references pointed at components/schemas."""
    text = API_SCHEMA.read_text(encoding="utf-8").replace('"#/$defs/', '"#/components/schemas/')
    schemas: dict[str, Any] = json.loads(text)["$defs"]
    analytics = ANALYTICS_SCHEMA.read_text(encoding="utf-8").replace('"#/$defs/', '"#/components/schemas/analytics_')
    schemas.update({f"analytics_{name}": schema for name, schema in json.loads(analytics)["$defs"].items()})
    return schemas


@cache
def _document_text() -> str:
    return json.dumps(document(), indent=1)


_PROBE = {"type": "object", "required": ["status"], "properties": {
    "status": {"type": "string", "enum": ["ok", "ready", "not ready"]},
    "database": {"type": "string", "enum": ["ok", "unreachable"]},
    "workers": {"type": "integer", "minimum": 0}}}


def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the API."""
    number = {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}
    exercise = {"type": "string", "minLength": 1, "maxLength": 200, "examples": ["count-queens"]}
    paths: dict[str, Any] = {
        "/api/health": {"get": {
            "operationId": "health", "summary": "Is the server up? Staff are told more.",
            "security": [{}, {"bearer": []}],
            "responses": {"200": json_answer(ref("health"), "up")},
        }},
        "/healthz": {"get": {
            "operationId": "liveness", "summary": "The process answers (a container's liveness probe).",
            "security": [{}], "responses": {"200": json_answer(_PROBE, "alive")},
        }},
        "/readyz": {"get": {
            "operationId": "readiness", "summary": "The database answers and a grading worker is reachable.",
            "security": [{}], "responses": {"200": json_answer(_PROBE, "ready"),
                                            "503": json_answer(_PROBE, "not ready: what is missing")},
        }},
        "/api/openapi.json": {"get": {
            "operationId": "openapi", "summary": "This document.", "security": [{}],
            "responses": {"200": json_answer({"type": "object", "required": ["openapi", "paths"]}, "OpenAPI 3.1")},
        }},
        "/api/submissions": {
            "post": {
                "operationId": "submit", "summary": "Hand in a file for an exercise; it is graded in turn.",
                "requestBody": {"required": True, "content": {"multipart/form-data": {
                    "schema": {"type": "object", "required": ["exercise", "file"], "properties": {
                        "exercise": exercise,
                        "file": {"type": "string", "format": "binary",
                                 "description": "a .py file, a notebook, a zip of a folder (the exercise's kind "
                                                "may take its own suffix, .txt for a prediction)"}}},
                    "encoding": {"file": {"contentType": "application/octet-stream"}}}}},
                "responses": {
                    "202": json_answer(ref("accepted"), "stored, queued for grading",
                                 {"Location": {"schema": {"type": "string"},
                                               "description": "/api/submissions/ID"}}),
                    **errors(400, 401, 403, 404, 413, 422, 429, 503)},
            },
            "get": {
                "operationId": "submissions", "summary": "A student's own submissions; staff: everyone's.",
                "parameters": [
                    query("exercise", exercise, "only this exercise's"),
                    query("student", {"type": "string", "maxLength": 200}, "staff: only this student's"),
                    query("status", {"enum": list(STATUSES)}, "only those in this state")],
                "responses": {"200": json_answer(ref("list"), "newest last"), **errors(401, 422)},
            },
        },
        "/api/submissions/{number}": {"get": {
            "operationId": "submission", "summary": "One submission and, once graded, its report.",
            "parameters": [
                {"name": "number", "in": "path", "required": True, "schema": number},
                query("wait", {"type": "number", "minimum": 0, "maximum": 60},
                       "wait up to this many seconds for it to start or finish")],
            "responses": {"200": json_answer(ref("submission"), "as this caller may see it"), **errors(401, 404, 422)},
        }},
        "/api/gradebook": {"get": {
            "operationId": "gradebook", "summary": "The class's gradebook, as `grader batch` writes it (staff).",
            "parameters": [query("format", {"enum": list(SERVED_GRADEBOOKS)},
                                  "json (default), or a CSV (grader.outputs); these need the server's --roster: "
                                  f"{', '.join(NEEDS_ROSTER)}")],
            "responses": {
                "200": {"description": "grades.json, or a CSV", "content": {
                    "application/json": {"schema": {"type": "object"}},
                    "text/csv": {"schema": {"type": "string"}}}},
                **errors(401, 403, 422)},
        }},
        "/api/regrade": {"post": {
            "operationId": "regrade", "summary": "Grade again what was graded under another version of its "
                                                 "exercise (staff); `all`: every submission.",
            "requestBody": {"required": False, "content": {"application/json": {"schema": {
                "type": "object", "properties": {"exercise": exercise, "all": {"type": "boolean"}}}}}},
            "responses": {"202": json_answer(ref("regrade"), "queued again"), **errors(401, 403, 404, 422)},
        }},
        "/api/overrides": {"post": {
            "operationId": "override", "summary": "A TA's score for one student's exercise (staff).",
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["student", "exercise", "score"], "properties": {
                    "student": {"type": "string", "minLength": 1, "maxLength": 200},
                    "exercise": exercise,
                    "score": {"type": "number", "minimum": 0, "description": "at most the exercise's points"},
                    "reason": {"type": "string", "maxLength": 2000}}}}}},
            "responses": {"200": json_answer({"type": "object", "required": ["student", "exercise", "score", "reason"],
                                        "properties": {"student": {"type": "string"},
                                                       "exercise": {"type": "string"},
                                                       "score": {"type": "number"},
                                                       "reason": {"type": "string"}}}, "stored"),
                          **errors(401, 403, 404, 422)},
        }},
        "/api/analytics": {"get": {
            "operationId": "analytics", "summary": "What students get wrong in an exercise (staff): per test, "
                                                   "the share failing by their latest submission, and the "
                                                   "wrong answers grouped, an example submission each.",
            "parameters": [
                {"name": "exercise", "in": "query", "required": True, "schema": exercise,
                 "description": "the exercise's id"},
                query("format", {"enum": ["json", "csv"]}, "json (default), or one of its tables as CSV"),
                query("table", {"enum": list(ANALYTICS_TABLES)}, "with format=csv: which table (tests by default)")],
            "responses": {
                "200": {"description": "the exercise's analytics (nobody handed it in: no tests, no students)",
                        "content": {"application/json": {"schema": ref("analytics_exercise")},
                                    "text/csv": {"schema": {"type": "string"}}}},
                **errors(401, 403, 404, 422)},
        }},
    }
    paths.update(draft_paths(exercise))
    paths.update(exam_paths())
    paths.update(lti_paths(exercise))
    paths.update(review_paths(number, exercise))
    for operations in paths.values():  # the body's bound and the connections' cap come before any route
        for operation in operations.values():
            for code in (400, 413, 503):
                operation["responses"].setdefault(str(code), json_answer(ref("error"), WHY[code]))
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {"title": "grader serve", "version": "1",
                 "description": "A course's submission server (`grader serve`). Every route but /api/health and "
                                "this document needs `Authorization: Bearer TOKEN`. Fields are a contract: "
                                "only ever added."},
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {"schemas": _components(),
                       "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                                      "description": "a token from `grader serve token`"}}},
    }


def openapi_json() -> bytes:
    """The document as the route sends it (built once)."""
    return _document_text().encode()
