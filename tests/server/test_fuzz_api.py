"""Schemathesis against a live `grader serve` on loopback, driven by the server's own /api/openapi.json:
inputs made from the description (valid ones, and ones that break it), sent with a staff token and with a
student's. No reply may be a 5xx, and every reply must be one the description lists, with a body of its
shape. Bounded: a fixed number of examples per route, derandomized, so a run is the same run each time.

A 5xx this finds that is already known (issue 36) is marked xfail below, by route and input, with the bug
named: remove its line in KNOWN when the bug is fixed, and the fuzzer then holds the fix."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from grader.server import openapi
from grader.server.app import routes_of
from tests.batch.classroom import write_course
from tests.server.conftest import ADD, Served

EXAMPLES = 20  # per route and token: the whole file's wall time stays well under a minute
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance,
          response_schema_conformance]


# (method, path, which inputs, the bug): a 5xx on such an input is the named bug, expected until it is fixed.
KNOWN: list[tuple[str, str, Callable[[Any], bool], str]] = []


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("fuzz")
    served = Served(root, root / "state", write_course(root))
    tokens = {"staff": served.token("ta", staff=True), "student": served.token("alice")}
    served.start("--workers", "1")
    graded = served.submit(tokens["student"], "add", ADD)  # something to find: a graded submission, id 1
    served.wait(tokens["student"], graded.body["id"])
    yield served
    served.stop()


def described() -> Any:
    """The description the server serves (the last test checks they are the same), the course's own exercise
    ids among its examples: a fuzzed hand-in then reaches the grader too."""
    document = openapi.document()
    for where in ("add", "shout"):
        document["paths"]["/api/submissions"]["post"]["requestBody"]["content"]["multipart/form-data"][
            "schema"]["properties"]["exercise"]["examples"].append(where)
    loaded = schemathesis.openapi.from_dict(document)
    loaded.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                                    max_examples=EXAMPLES, deterministic=True)
    return loaded


schema = described()


FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


@schema.parametrize()
@FUZZ
def test_no_request_of_staff_gets_a_5xx_and_every_reply_is_one_the_description_lists(case: Any,
                                                                                       live: Served) -> None:
    send(case, live, live.tokens["ta"])


@schema.parametrize()
@FUZZ
def test_no_request_of_a_student_gets_a_5xx_and_every_reply_is_one_the_description_lists(case: Any,
                                                                                           live: Served) -> None:
    send(case, live, live.tokens["alice"])


def send(case: Any, live: Served, token: str) -> None:
    if case.path == "/api/submissions/{number}":
        case.query = {**(case.query or {}), "wait": 0}  # a fuzzed ?wait=60 would only spend the minute
    response = case.call(base_url=live.url, headers={"Authorization": f"Bearer {token}"}, timeout=60)
    if response.status_code >= 500:
        for method, path, matches, bug in KNOWN:
            if case.method.upper() == method and case.path == path and matches(case):
                pytest.xfail(bug)
    case.validate_response(response, checks=CHECKS)


def test_the_description_is_openapi_3_1_and_names_every_api_route(live: Served) -> None:
    document = live.call("GET", "/api/openapi.json").body
    assert document == openapi.document()
    assert document["openapi"].startswith("3.1")
    for route in routes_of([]):  # the server's own routes (LTI's are described in openapi_lti.py)
        for method in route.methods - {"HEAD"} if route.path.startswith("/api/") else ():  # type: ignore[attr-defined]
            assert method.lower() in document["paths"][route.path], (method, route.path)  # type: ignore[attr-defined]
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert document["paths"]["/api/health"]["get"]["security"][0] == {}
