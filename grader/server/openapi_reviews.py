"""Reviews, regrade requests and the audit in the API's OpenAPI description (grader/server/review_routes.py
serves them)."""

from __future__ import annotations

from typing import Any

from grader.server.openapi_parts import errors, json_answer, query

def review_paths(number: dict[str, Any], exercise: dict[str, Any]) -> dict[str, Any]:
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
                                                                       "description": "the score staff set"}}}},
        "counted": {"type": "object", "description": "what the exercise counts for now, as the caller sees it "
                                                     "(grader/counting.py): the submission that counts, its score",
                    "properties": {"submission": {"type": ["integer", "null"]}, "score": {"type": ["number", "null"]},
                                   "from": {"type": "string"}}},
        "answers": {"type": "array", "description": "staff: each answer that set a score, the submission it "
                                                     "changed and the exercise's counted score before and after",
                    "items": {"type": "object", "properties": {
                        "at": when, "by": {"type": "string"}, "submission": {"type": "integer"},
                        "score": {"type": "number"}, "before": {"type": ["number", "null"]},
                        "after": {"type": ["number", "null"]}}}}}}
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
                "responses": {"200": json_answer(review, "stored (pending until released)"),
                              **errors(401, 403, 404, 422, 503)},
            },
            "get": {
                "operationId": "getReview", "summary": "A submission's review: staff any; a student their own once "
                                                       "released.",
                "parameters": [{"name": "submission", "in": "query", "required": True, "schema": number}],
                "responses": {"200": json_answer(review, "the review"), **errors(401, 404, 422, 503)},
            },
        },
        "/api/reviews/release": {"post": {
            "operationId": "releaseReviews", "summary": "Release the pending reviews of an exercise, a student, or "
                                                        "both (staff): their students see them, and they count.",
            "requestBody": body({"type": "object", "properties": {"exercise": exercise, "student": name}}),
            "responses": {"200": json_answer({"type": "object", "required": ["released"], "properties": {
                "released": {"type": "array", "items": {"type": "integer"}, "description": "submissions"}}},
                "released"), **errors(401, 403, 404, 422)},
        }},
        "/api/regrade-requests": {
            "post": {
                "operationId": "askRegrade", "summary": "A student asks about a test or a rubric item of their own "
                                                        "submission.",
                "requestBody": body({"type": "object", "required": ["submission", "message"], "properties": {
                    "submission": submission, "test": name, "rubric_item": name, "message": text}}),
                "responses": {"201": json_answer(request, "asked", {"Location": {"schema": {"type": "string"},
                                                                          "description": "/api/regrade-requests/ID"}}),
                              **errors(401, 403, 404, 422, 503)},
            },
            "get": {
                "operationId": "regradeRequests", "summary": "A student's own requests; staff: everyone's.",
                "parameters": [query("status", {"enum": ["open", "answered"]}, "only those in this state")],
                "responses": {"200": json_answer({"type": "object", "required": ["requests"], "properties": {
                    "requests": {"type": "array", "items": request}}}, "oldest first"), **errors(401, 422)},
            },
        },
        "/api/regrade-requests/{number}": {
            "get": {
                "operationId": "regradeRequest", "summary": "A request and its thread (a student: their own).",
                "parameters": [request_path],
                "responses": {"200": json_answer(request, "the request"), **errors(401, 404)},
            },
            "post": {
                "operationId": "answerRegrade", "summary": "Staff answer, and may set the score of the submission "
                                                           "asked about; its student may write again.",
                "parameters": [request_path],
                "requestBody": body({"type": "object", "required": ["message"], "properties": {
                    "message": text,
                    "score": {"type": ["number", "null"], "minimum": 0,
                              "description": "staff: the new score of the submission the request is about (its tests' and "
                                             "rubric's replaced, the late rule still applied), at most the "
                                             "exercise's points; absent: unchanged"}}}),
                "responses": {"200": json_answer(request, "answered"), **errors(401, 403, 404, 422, 503)},
            },
        },
        "/api/audit": {"get": {
            "operationId": "audit", "summary": "Every score change of a student: who, when, from what to what, "
                                               "why (staff).",
            "parameters": [{"name": "student", "in": "query", "required": True, "schema": name},
                           query("format", {"enum": ["json", "csv"]}, "json (default) or csv")],
            "responses": {"200": {"description": "the changes, oldest first", "content": {
                "application/json": {"schema": {"type": "object", "required": ["student", "changes"], "properties": {
                    "student": {"type": "string"}, "changes": {"type": "array", "items": change}}}},
                "text/csv": {"schema": {"type": "string"}}}}, **errors(401, 403, 404, 422)},
        }},
    }
