"""The drafts' part of the API's OpenAPI description (grader/server/draft_routes.py)."""

from __future__ import annotations

from typing import Any

from grader.server.openapi_parts import errors, json_answer

WHEN = {"type": "string", "description": "ISO 8601, UTC, by the server's clock"}
RECEIPT = {"type": "object", "required": ["exercise", "revision", "sha256", "bytes", "saved_at"], "properties": {
    "exercise": {"type": "string"},
    "revision": {"type": "integer", "minimum": 1, "description": "the next save names it as its base"},
    "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "of the code as UTF-8"},
    "bytes": {"type": "integer", "minimum": 0}, "saved_at": WHEN}}
DRAFT = {"type": "object", "required": ["exercise", "revision", "code"], "properties": {
    **RECEIPT["properties"],
    "revision": {"type": "integer", "minimum": 0, "description": "0: nothing saved yet"},
    "code": {"type": ["string", "null"]}, "server_time": WHEN}}


EXAM_OF_SAVE = {"type": "object", "required": ["id", "seconds_left", "ends_at"], "properties": {
    "id": {"type": "string"}, "seconds_left": {"type": "number", "minimum": 0}, "ends_at": WHEN},
    "description": "a save of an exam's work: the time left, which the page's timer takes again"}


def draft_paths(exercise: dict[str, Any]) -> dict[str, Any]:
    path = [{"name": "exercise", "in": "path", "required": True, "schema": exercise}]
    return {"/api/drafts/{exercise}": {
        "get": {"operationId": "draft", "summary": "The caller's saved work on an exercise (revision 0: none).",
                "parameters": path,
                "responses": {"200": json_answer(DRAFT, "the draft as the server holds it"), **errors(401, 404)}},
        "put": {"operationId": "save_draft", "summary": "Save work in progress; answered with a receipt. A save "
                                                       "edited from an older revision is refused (409) with the "
                                                       "draft as it is: two pages never fork the work.",
                "parameters": path,
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["code", "base"], "properties": {
                        "code": {"type": "string"},
                        "base": {"type": "integer", "minimum": 0,
                                 "description": "the revision the work was edited from, 0 for none"}}}}}},
                "responses": {
                    "200": json_answer({"type": "object", "required": ["receipt", "server_time"], "properties": {
                        "receipt": RECEIPT, "server_time": WHEN, "exam": EXAM_OF_SAVE}}, "saved, durably"),
                    "409": json_answer({"type": "object", "required": ["error", "current"], "properties": {
                        "error": {"type": "string"}, "current": DRAFT}}, "saved meanwhile from another page"),
                    **errors(401, 403, 404, 413, 422)}},
    }}
