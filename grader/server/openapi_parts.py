"""The pieces every part of the API's OpenAPI description is made of: a reference to a component, a JSON
answer, the refusals with their reasons, a query parameter (grader/server/openapi.py assembles the parts)."""

from __future__ import annotations

from typing import Any

WHY = {
    400: "a malformed request (a bad Content-Length)",
    401: "no valid token: `Authorization: Bearer TOKEN` (`grader serve token STUDENT` issues one)",
    403: "not allowed to this caller (staff only), or past the exercise's late cut-off",
    404: "no such thing, or another student's",
    413: "the body is over the server's upload limit",
    422: "a value the route cannot take; the error says which and why",
    429: "over the exercise's rate limit; Retry-After says when to try again",
    503: "the server cannot take it now (the exercise cannot be graded, or every connection is busy)",
}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def json_answer(schema: dict[str, Any], why: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {"description": why, "content": {"application/json": {"schema": schema}}}
    if headers:
        answer["headers"] = headers
    return answer


def errors(*codes: int) -> dict[str, Any]:
    answers = {str(code): json_answer(ref("error"), WHY[code]) for code in codes}
    if 401 in codes:
        answers["401"]["headers"] = {"WWW-Authenticate": {"schema": {"type": "string"},
                                                          "description": "Bearer"}}
    if 429 in codes:
        answers["429"]["headers"] = {"Retry-After": {"schema": {"type": "string", "pattern": "^[0-9]+$"},
                                                     "description": "seconds"}}
    return answers


def query(name: str, schema: dict[str, Any], why: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": why}
