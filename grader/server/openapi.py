"""The JSON API's description as OpenAPI 3.1, served at GET /api/openapi.json: what each route takes (path,
query, body) and every answer it may give. The bodies' shapes are grader/schemas/server-api.schema.json's
(JSON Schema 2020-12, which OpenAPI 3.1 speaks as it is): one contract, written once. Built from data only:
no web framework is imported here, and a test fuzzes a live server against it (tests/server/test_fuzz_api.py)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

API_SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "server-api.schema.json"
# GET /api/analytics answers an exercise of `grader analytics --format json`: its schema's $defs join the
# components, named analytics_<def>.
ANALYTICS_SCHEMA = API_SCHEMA.with_name("analytics.schema.json")
ANALYTICS_TABLES = ("exercises", "tests", "wrong-answers", "failure-patterns", "mutants")
STATUSES = ("queued", "running", "done", "error")
GRADEBOOK_FORMATS = ("json", "csv", "canvas", "moodle", "plain")

_WHY = {
    400: "a malformed request (a bad Content-Length)",
    401: "no valid token: `Authorization: Bearer TOKEN` (`grader serve token STUDENT` issues one)",
    403: "not allowed to this caller (staff only), or past the exercise's late cut-off",
    404: "no such thing, or another student's",
    413: "the body is over the server's upload limit",
    422: "a value the route cannot take; the error says which and why",
    429: "over the exercise's rate limit; Retry-After says when to try again",
    503: "the server cannot take it now (the exercise cannot be graded, or every connection is busy)",
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], why: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {"description": why, "content": {"application/json": {"schema": schema}}}
    if headers:
        answer["headers"] = headers
    return answer


def _errors(*codes: int) -> dict[str, Any]:
    answers = {str(code): _json(_ref("error"), _WHY[code]) for code in codes}
    if 401 in codes:
        answers["401"]["headers"] = {"WWW-Authenticate": {"schema": {"type": "string"},
                                                          "description": "Bearer"}}
    if 429 in codes:
        answers["429"]["headers"] = {"Retry-After": {"schema": {"type": "string", "pattern": "^[0-9]+$"},
                                                     "description": "seconds"}}
    return answers


def _query(name: str, schema: dict[str, Any], why: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": why}


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


def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the API."""
    number = {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}
    exercise = {"type": "string", "minLength": 1, "maxLength": 200, "examples": ["count-queens"]}
    paths: dict[str, Any] = {
        "/api/health": {"get": {
            "operationId": "health", "summary": "Is the server up? Staff are told more.",
            "security": [{}, {"bearer": []}],
            "responses": {"200": _json(_ref("health"), "up")},
        }},
        "/api/openapi.json": {"get": {
            "operationId": "openapi", "summary": "This document.", "security": [{}],
            "responses": {"200": _json({"type": "object", "required": ["openapi", "paths"]}, "OpenAPI 3.1")},
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
                    "202": _json(_ref("accepted"), "stored, queued for grading",
                                 {"Location": {"schema": {"type": "string"},
                                               "description": "/api/submissions/ID"}}),
                    **_errors(400, 401, 403, 404, 413, 422, 429, 503)},
            },
            "get": {
                "operationId": "submissions", "summary": "A student's own submissions; staff: everyone's.",
                "parameters": [
                    _query("exercise", exercise, "only this exercise's"),
                    _query("student", {"type": "string", "maxLength": 200}, "staff: only this student's"),
                    _query("status", {"enum": list(STATUSES)}, "only those in this state")],
                "responses": {"200": _json(_ref("list"), "newest last"), **_errors(401, 422)},
            },
        },
        "/api/submissions/{number}": {"get": {
            "operationId": "submission", "summary": "One submission and, once graded, its report.",
            "parameters": [
                {"name": "number", "in": "path", "required": True, "schema": number},
                _query("wait", {"type": "number", "minimum": 0, "maximum": 60},
                       "wait up to this many seconds for it to start or finish")],
            "responses": {"200": _json(_ref("submission"), "as this caller may see it"), **_errors(401, 404, 422)},
        }},
        "/api/gradebook": {"get": {
            "operationId": "gradebook", "summary": "The class's gradebook, as `grader batch` writes it (staff).",
            "parameters": [_query("format", {"enum": list(GRADEBOOK_FORMATS)},
                                  "json (default), or an LMS's CSV; canvas and moodle need the server's --roster")],
            "responses": {
                "200": {"description": "grades.json, or a CSV", "content": {
                    "application/json": {"schema": {"type": "object"}},
                    "text/csv": {"schema": {"type": "string"}}}},
                **_errors(401, 403, 422)},
        }},
        "/api/regrade": {"post": {
            "operationId": "regrade", "summary": "Grade again what was graded under another version of its "
                                                 "exercise (staff); `all`: every submission.",
            "requestBody": {"required": False, "content": {"application/json": {"schema": {
                "type": "object", "properties": {"exercise": exercise, "all": {"type": "boolean"}}}}}},
            "responses": {"202": _json(_ref("regrade"), "queued again"), **_errors(401, 403, 404, 422)},
        }},
        "/api/overrides": {"post": {
            "operationId": "override", "summary": "A TA's score for one student's exercise (staff).",
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["student", "exercise", "score"], "properties": {
                    "student": {"type": "string", "minLength": 1, "maxLength": 200},
                    "exercise": exercise,
                    "score": {"type": "number", "minimum": 0, "description": "at most the exercise's points"},
                    "reason": {"type": "string", "maxLength": 2000}}}}}},
            "responses": {"200": _json({"type": "object", "required": ["student", "exercise", "score", "reason"],
                                        "properties": {"student": {"type": "string"},
                                                       "exercise": {"type": "string"},
                                                       "score": {"type": "number"},
                                                       "reason": {"type": "string"}}}, "stored"),
                          **_errors(401, 403, 404, 422)},
        }},
        "/api/analytics": {"get": {
            "operationId": "analytics", "summary": "What students get wrong in an exercise (staff): per test, "
                                                   "the share failing by their latest submission, and the "
                                                   "wrong answers grouped, an example submission each.",
            "parameters": [
                {"name": "exercise", "in": "query", "required": True, "schema": exercise,
                 "description": "the exercise's id"},
                _query("format", {"enum": ["json", "csv"]}, "json (default), or one of its tables as CSV"),
                _query("table", {"enum": list(ANALYTICS_TABLES)}, "with format=csv: which table (tests by default)")],
            "responses": {
                "200": {"description": "the exercise's analytics (nobody handed it in: no tests, no students)",
                        "content": {"application/json": {"schema": _ref("analytics_exercise")},
                                    "text/csv": {"schema": {"type": "string"}}}},
                **_errors(401, 403, 404, 422)},
        }},
    }
    paths.update(_lti_paths(exercise))
    paths.update(_review_paths(number, exercise))
    for operations in paths.values():  # the body's bound and the connections' cap come before any route
        for operation in operations.values():
            for code in (400, 413, 503):
                operation["responses"].setdefault(str(code), _json(_ref("error"), _WHY[code]))
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


# ---------------------------------------------------------------- LTI 1.3 (grader/platforms/lti/routes.py)
# The LMS's browser posts forms here and follows redirects; the answers are pages, not JSON. A refusal is a
# page saying why (a forged, expired or replayed launch, a stale form), never a 5xx.
def _page(why: str) -> dict[str, Any]:
    return {"description": why, "content": {"text/html": {"schema": {"type": "string"}}}}


def _page_or_error(why: str) -> dict[str, Any]:
    """A refusal: the tool's page, or the server's JSON error when the server refuses before the route (a
    body over the limit, every connection busy)."""
    return {"description": why, "content": {"text/html": {"schema": {"type": "string"}},
                                            "application/json": {"schema": _ref("error")}}}


def _redirect(why: str) -> dict[str, Any]:
    return {"description": why, "headers": {"Location": {"schema": {"type": "string"}, "description": why}}}


def _form(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "required": required, "properties": properties}
    return {"required": bool(required), "content": {"application/x-www-form-urlencoded": {"schema": schema}}}


def _lti_paths(exercise: dict[str, Any]) -> dict[str, Any]:
    text = {"type": "string", "maxLength": 8192}
    in_path = {"name": "exercise", "in": "path", "required": True, "schema": exercise}
    refusals = {str(code): _page_or_error(why) for code, why in (
        (400, "a malformed form or login (no registration for the issuer, a target that is not this server)"),
        (401, "no session: open the exercise from the course in the LMS"),
        (403, "refused: the launch's signature, issuer, audience, deployment, state or nonce, or the form's "
              "CSRF value"),
        (404, "no such exercise"), (413, _WHY[413]), (503, _WHY[503]))}
    login_fields = {"iss": text, "login_hint": text, "target_link_uri": text, "lti_message_hint": text,
                    "client_id": text, "lti_deployment_id": text}
    login = {"summary": "OIDC third-party login initiation: the LMS's browser comes here first",
             "security": [{}],
             "responses": {"302": _redirect("on to the platform's authorisation URL, the state in a cookie"),
                           **refusals}}
    return {
        "/lti/login": {
            "get": {**login, "operationId": "lti_login",
                    "parameters": [_query(name, text, "OIDC login initiation") for name in login_fields]},
            "post": {**login, "operationId": "lti_login_form", "requestBody": _form(login_fields, [])},
        },
        "/lti/launch": {"post": {
            "operationId": "lti_launch", "security": [{}],
            "summary": "The redirect URI: the platform's signed id_token, posted by the browser with the "
                       "login's state. A resource link signs the person in (a session cookie, never a token "
                       "shown) and opens the exercise; a deep-linking request opens the instructor's list.",
            "requestBody": _form({"id_token": text, "state": text}, ["id_token", "state"]),
            "responses": {"303": _redirect("/lti/exercises/ID, signed in"),
                          "200": _page("the instructor's list of exercises (deep linking)"), **refusals}}},
        "/lti/jwks": {"get": {
            "operationId": "lti_jwks", "summary": "The tool's public keys (a JWKS).", "security": [{}],
            "responses": {"200": _json({"type": "object", "required": ["keys"],
                                        "properties": {"keys": {"type": "array", "items": {"type": "object"}}}},
                                       "the signing key and the one before it")}}},
        "/lti/deep-link": {"post": {
            "operationId": "lti_deep_link", "security": [{}],
            "summary": "The instructor's pick: a page whose form posts the tool's signed answer back to the LMS.",
            "requestBody": _form({"csrf": text, "launch": text, "exercise": exercise}, []),
            "responses": {"200": _page("the signed answer, in a form to the platform"), **refusals}}},
        "/lti/exercises/{exercise}": {
            "get": {"operationId": "lti_exercise", "security": [{"bearer": []}], "parameters": [in_path],
                    "summary": "The page a launch opens: hand in, see each hand-in's score (the launch's "
                               "session cookie, or a token).",
                    "responses": {"200": _page("the exercise's page"), **refusals}},
            "post": {"operationId": "lti_exercise_submit", "security": [{"bearer": []}], "parameters": [in_path],
                     "summary": "Hand in from the page (its form, with its CSRF value).",
                     "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
                         "type": "object", "required": ["file"], "properties": {
                             "csrf": text, "exercise": exercise, "file": {"type": "string", "format": "binary"}}},
                         "encoding": {"file": {"contentType": "application/octet-stream"}}}}},
                     "responses": {"303": _redirect("back to the exercise's page"), "422": _page_or_error(_WHY[422]),
                                   "429": _page_or_error(_WHY[429]), **refusals}},
        },
        "/api/lti/status": {"get": {
            "operationId": "lti_status", "summary": "Platforms, links, each score sent or the error of the "
                                                    "last failed send, the roster (staff).",
            "responses": {"200": _json({"type": "object", "required": ["platforms", "links", "sends", "failed",
                                                                        "roster"]}, "the LTI state"),
                          **_errors(401, 403)}}},
        "/api/lti/sync": {"post": {
            "operationId": "lti_sync", "summary": "Send the scores that changed and read the rosters now (staff).",
            "responses": {"200": _json({"type": "object", "required": ["sent", "rosters"]}, "what was tried"),
                          **_errors(401, 403)}}},
    }


def _review_paths(number: dict[str, Any], exercise: dict[str, Any]) -> dict[str, Any]:
    """Reviews, regrade requests and the audit (grader/server/review_routes.py)."""
    text = {"type": "string", "maxLength": 4000}
    name = {"type": "string", "minLength": 1, "maxLength": 200}
    when = {"type": ["string", "null"], "description": "ISO 8601, UTC"}
    review = {"type": "object", "required": ["submission", "student", "exercise", "rubric", "comments", "summary",
                                             "points", "by", "at", "released", "released_at"], "properties": {
        "submission": {"type": "integer"}, "student": {"type": "string"}, "exercise": {"type": "string"},
        "rubric": {"type": "array", "items": {"type": "object", "required": ["id", "points", "description"],
                                              "properties": {"id": {"type": "string"}, "points": {"type": "number"},
                                                             "description": {"type": "string"}}}},
        "comments": {"type": "array", "items": {"type": "object", "required": ["line", "text"], "properties": {
            "line": {"type": "integer", "minimum": 1}, "text": {"type": "string"}}}},
        "summary": {"type": "string"},
        "points": {"type": "number", "description": "the ticked items' points: added to the tests' score once "
                                                    "released (the total held between 0 and the exercise's points)"},
        "by": {"type": "string"}, "at": when,
        "released": {"type": "boolean", "description": "the student sees it, and it counts, once released"},
        "released_at": when}}
    request = {"type": "object", "required": ["id", "submission", "student", "exercise", "about", "status", "at",
                                              "thread"], "properties": {
        "id": {"type": "integer"}, "submission": {"type": "integer"}, "student": {"type": "string"},
        "exercise": {"type": "string"},
        "about": {"type": "string", "description": "test:NAME or rubric:ITEM-ID"},
        "status": {"enum": ["open", "answered"]}, "at": when,
        "thread": {"type": "array", "items": {"type": "object", "required": ["author", "staff", "text", "at", "score"],
                                              "properties": {"author": {"type": "string"}, "staff": {"type": "boolean"},
                                                             "text": {"type": "string"}, "at": when,
                                                             "score": {"type": ["number", "null"],
                                                                       "description": "the score staff set"}}}}}}
    change = {"type": "object", "required": ["at", "student", "exercise", "submission", "what", "who", "before",
                                             "after", "why"], "properties": {
        "at": when, "student": {"type": "string"}, "exercise": {"type": "string"},
        "submission": {"type": ["integer", "null"]},
        "what": {"enum": ["regrade", "override", "review", "release", "late", "request"]},
        "who": {"type": "string"}, "before": {"type": ["number", "null"]}, "after": {"type": ["number", "null"]},
        "why": {"type": "string"}}}
    submission = {**number, "description": "a submission's id"}
    request_path = {"name": "number", "in": "path", "required": True, "schema": number}

    def body(schema: dict[str, Any]) -> dict[str, Any]:
        return {"required": True, "content": {"application/json": {"schema": schema}}}

    return {
        "/api/reviews": {
            "post": {
                "operationId": "review", "summary": "A TA's review of a submission: rubric items ticked and comments "
                                                   "on lines of its code (staff). Saved again, it replaces the last.",
                "requestBody": body({"type": "object", "required": ["submission"], "properties": {
                    "submission": submission,
                    "rubric": {"type": "array", "items": {"type": "string"}, "description": "the exercise's item ids"},
                    "comments": {"type": "array", "maxItems": 200, "items": {
                        "type": "object", "required": ["line", "text"], "additionalProperties": False,
                        "properties": {"line": {"type": "integer", "minimum": 1,
                                                "description": "a line of that submission's code"},
                                       "text": text}}},
                    "summary": text}}),
                "responses": {"200": _json(review, "stored (pending until released)"),
                              **_errors(401, 403, 404, 422, 503)},
            },
            "get": {
                "operationId": "getReview", "summary": "A submission's review: staff any; a student their own once "
                                                       "released.",
                "parameters": [{"name": "submission", "in": "query", "required": True, "schema": number}],
                "responses": {"200": _json(review, "the review"), **_errors(401, 404, 422, 503)},
            },
        },
        "/api/reviews/release": {"post": {
            "operationId": "releaseReviews", "summary": "Release the pending reviews of an exercise, a student, or "
                                                        "both (staff): their students see them, and they count.",
            "requestBody": body({"type": "object", "properties": {"exercise": exercise, "student": name}}),
            "responses": {"200": _json({"type": "object", "required": ["released"], "properties": {
                "released": {"type": "array", "items": {"type": "integer"}, "description": "submissions"}}},
                "released"), **_errors(401, 403, 404, 422)},
        }},
        "/api/regrade-requests": {
            "post": {
                "operationId": "askRegrade", "summary": "A student asks about a test or a rubric item of their own "
                                                        "submission.",
                "requestBody": body({"type": "object", "required": ["submission", "message"], "properties": {
                    "submission": submission, "test": name, "rubric_item": name, "message": text}}),
                "responses": {"201": _json(request, "asked", {"Location": {"schema": {"type": "string"},
                                                                          "description": "/api/regrade-requests/ID"}}),
                              **_errors(401, 403, 404, 422, 503)},
            },
            "get": {
                "operationId": "regradeRequests", "summary": "A student's own requests; staff: everyone's.",
                "parameters": [_query("status", {"enum": ["open", "answered"]}, "only those in this state")],
                "responses": {"200": _json({"type": "object", "required": ["requests"], "properties": {
                    "requests": {"type": "array", "items": request}}}, "oldest first"), **_errors(401, 422)},
            },
        },
        "/api/regrade-requests/{number}": {
            "get": {
                "operationId": "regradeRequest", "summary": "A request and its thread (a student: their own).",
                "parameters": [request_path],
                "responses": {"200": _json(request, "the request"), **_errors(401, 404)},
            },
            "post": {
                "operationId": "answerRegrade", "summary": "Staff answer, and may set the exercise's score (an "
                                                           "override); its student may write again.",
                "parameters": [request_path],
                "requestBody": body({"type": "object", "required": ["message"], "properties": {
                    "message": text,
                    "score": {"type": ["number", "null"], "minimum": 0,
                              "description": "staff: the new score, at most the exercise's points; absent: unchanged"}}}),
                "responses": {"200": _json(request, "answered"), **_errors(401, 403, 404, 422, 503)},
            },
        },
        "/api/audit": {"get": {
            "operationId": "audit", "summary": "Every score change of a student: who, when, from what to what, "
                                               "why (staff).",
            "parameters": [{"name": "student", "in": "query", "required": True, "schema": name},
                           _query("format", {"enum": ["json", "csv"]}, "json (default) or csv")],
            "responses": {"200": {"description": "the changes, oldest first", "content": {
                "application/json": {"schema": {"type": "object", "required": ["student", "changes"], "properties": {
                    "student": {"type": "string"}, "changes": {"type": "array", "items": change}}}},
                "text/csv": {"schema": {"type": "string"}}}}, **_errors(401, 403, 404, 422)},
        }},
    }


def openapi_json() -> bytes:
    """The document as the route sends it (built once)."""
    return _document_text().encode()
