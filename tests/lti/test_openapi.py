"""The LTI tool's routes are in the server's OpenAPI description (tests/server/test_fuzz_api.py fuzzes every
route it names, hostile forms and forged tokens among its inputs), described as what they are: form posts
answered by redirects and pages."""

from __future__ import annotations

from grader.platforms.lti.routes import ROUTES
from grader.server import openapi


def test_every_lti_route_and_method_is_in_the_openapi_description() -> None:
    document = openapi.document()
    assert len(ROUTES) >= 8
    for path, _, methods, _ in ROUTES:
        for method in methods:
            assert method.lower() in document["paths"][path], (method, path)


def test_the_login_and_launch_are_form_posts_answered_by_redirects_or_pages() -> None:
    paths = openapi.document()["paths"]
    launch = paths["/lti/launch"]["post"]
    assert set(launch["requestBody"]["content"]) == {"application/x-www-form-urlencoded"}
    assert "Location" in launch["responses"]["303"]["headers"]
    assert "text/html" in launch["responses"]["403"]["content"]
    assert "Location" in paths["/lti/login"]["get"]["responses"]["302"]["headers"]
    assert paths["/lti/login"]["post"]["security"] == [{}]  # the LMS's browser: no token, by design
