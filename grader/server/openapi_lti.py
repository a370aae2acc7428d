"""The LTI 1.3 tool's routes in the API's OpenAPI description (grader/platforms/lti/routes.py serves them)."""

from __future__ import annotations

from typing import Any

from grader.server.openapi_parts import WHY, errors, json_answer, query, ref

# ---------------------------------------------------------------- LTI 1.3 (grader/platforms/lti/routes.py)
# The LMS's browser posts forms here and follows redirects; the answers are pages, not JSON. A refusal is a
# page saying why (a forged, expired or replayed launch, a stale form), never a 5xx.
def _page(why: str) -> dict[str, Any]:
    return {"description": why, "content": {"text/html": {"schema": {"type": "string"}}}}


def _page_or_error(why: str) -> dict[str, Any]:
    """A refusal: the tool's page, or the server's JSON error when the server refuses before the route (a
    body over the limit, every connection busy)."""
    return {"description": why, "content": {"text/html": {"schema": {"type": "string"}},
                                            "application/json": {"schema": ref("error")}}}


def _redirect(why: str) -> dict[str, Any]:
    return {"description": why, "headers": {"Location": {"schema": {"type": "string"}, "description": why}}}


def _form(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "required": required, "properties": properties}
    return {"required": bool(required), "content": {"application/x-www-form-urlencoded": {"schema": schema}}}


def lti_paths(exercise: dict[str, Any]) -> dict[str, Any]:
    text = {"type": "string", "maxLength": 8192}
    in_path = {"name": "exercise", "in": "path", "required": True, "schema": exercise}
    refusals = {str(code): _page_or_error(why) for code, why in (
        (400, "a malformed form or login (no registration for the issuer, a target that is not this server)"),
        (401, "no session: open the exercise from the course in the LMS"),
        (403, "refused: the launch's signature, issuer, audience, deployment, state or nonce, or the form's "
              "CSRF value"),
        (404, "no such exercise"), (413, WHY[413]), (503, WHY[503]))}
    login_fields = {"iss": text, "login_hint": text, "target_link_uri": text, "lti_message_hint": text,
                    "client_id": text, "lti_deployment_id": text}
    login = {"summary": "OIDC third-party login initiation: the LMS's browser comes here first",
             "security": [{}],
             "responses": {"302": _redirect("on to the platform's authorisation URL, the state in a cookie"),
                           **refusals}}
    return {
        "/lti/login": {
            "get": {**login, "operationId": "lti_login",
                    "parameters": [query(name, text, "OIDC login initiation") for name in login_fields]},
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
            "responses": {"200": json_answer({"type": "object", "required": ["keys"],
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
                     "responses": {"303": _redirect("back to the exercise's page"), "422": _page_or_error(WHY[422]),
                                   "429": _page_or_error(WHY[429]), **refusals}},
        },
        "/api/lti/status": {"get": {
            "operationId": "lti_status", "summary": "Platforms, links, each score sent or the error of the "
                                                    "last failed send, the roster (staff).",
            "responses": {"200": json_answer({"type": "object", "required": ["platforms", "links", "sends", "failed",
                                                                        "roster"]}, "the LTI state"),
                          **errors(401, 403)}}},
        "/api/lti/sync": {"post": {
            "operationId": "lti_sync", "summary": "Send the scores that changed and read the rosters now (staff).",
            "responses": {"200": json_answer({"type": "object", "required": ["sent", "rosters"]}, "what was tried"),
                          **errors(401, 403)}}},
    }
