"""The LTI tool's routes are in the server's OpenAPI description (tests/server/test_fuzz_api.py fuzzes every
route it names, hostile forms and forged tokens among its inputs), described as what they are: form posts
answered by redirects and pages."""

from __future__ import annotations

import re
from pathlib import Path

from grader.server import openapi

ROUTES = Path(__file__).resolve().parents[2] / "grader" / "platforms" / "lti" / "routes.py"


def test_every_lti_route_and_method_is_in_the_openapi_description() -> None:
    document = openapi.document()
    found = re.findall(r'Route\("([^"]+)", \w+, methods=\[([^\]]+)\]\)', ROUTES.read_text())
    assert len(found) >= 8
    for path, methods in found:
        described = re.sub(r"\{(\w+)\}", r"{\1}", path)
        for method in re.findall(r'"(\w+)"', methods):
            assert method.lower() in document["paths"][described], (method, path)


def test_the_login_and_launch_are_form_posts_answered_by_redirects_or_pages() -> None:
    paths = openapi.document()["paths"]
    launch = paths["/lti/launch"]["post"]
    assert set(launch["requestBody"]["content"]) == {"application/x-www-form-urlencoded"}
    assert "Location" in launch["responses"]["303"]["headers"]
    assert "text/html" in launch["responses"]["403"]["content"]
    assert "Location" in paths["/lti/login"]["get"]["responses"]["302"]["headers"]
    assert paths["/lti/login"]["post"]["security"] == [{}]  # the LMS's browser: no token, by design
