"""The authorization matrix, generated from the routes' declarations (grader/server/access.py): every route
of the server (API, pages, forms, exports, LTI) called by every kind of caller, each answer checked against
what the declaration says. A route with no declaration fails the test. Callers: nobody, student A, student B
on A's things, a TA, an instructor, a learner launched from the LMS course this server serves, and an
instructor of another course of the same LMS (refused at the launch: they are nobody here)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast
from urllib.parse import urlencode

import pytest

from grader.server.access import Access, declared
from grader.server.app import access_table, parts_of, routes_of
from grader.server.web import Server
from grader.server.roles import Caller, Role
from tests.lti.platform import CLAIM, INSTRUCTOR, LEARNER, Browser, Platform
from tests.server.conftest import CSRF, Served

SECRET = "# alice-secret-5f1c\ndef add(a, b):\n    return a + b\n"  # A's code: no one else may read it
MARK = "alice-secret-5f1c"
INSTITUTION_INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"


@dataclass
class Who:
    name: str
    role: Role | None  # None: nobody the server knows
    token: str = ""
    owns: bool = True  # whether A's things are theirs (student B's are not)


@dataclass
class World:
    callers: list[Who]
    submission: int
    request: int


def _routes() -> list[tuple[str, str, Access]]:
    return declared(routes_of(parts_of(cast(Server, None))))  # built, never called: no server needed


@pytest.fixture(scope="module")
def world(tool: Served, platform: Platform) -> Iterator[World]:
    alice, bob = tool.token("alice"), tool.token("bob")
    number = tool.submit(alice, "add", SECRET).body["id"]
    report = tool.wait(alice, number)["report"]
    asked = tool.call("POST", "/api/regrade-requests", alice, json.dumps(
        {"submission": number, "message": "why?", "test": report["tests"][0]["name"]}).encode(), "application/json")
    assert asked.status == 201 or asked.status == 200, asked.body
    learner = Browser(platform)
    assert learner.sign_in(sub="user-lena", roles=(LEARNER,)).status_code == 303
    elsewhere = Browser(platform)  # an instructor of another course of the same LMS and deployment
    refused = elsewhere.sign_in(sub="user-otto", roles=(INSTRUCTOR,),
                                **{f"{CLAIM}context": {"id": "course-2", "title": "Other course"}})
    assert refused.status_code == 403 and "another course" in refused.text
    assert "grader_session" not in elsewhere.session.cookies
    yield World([
        Who("nobody", None),
        Who("student A", Role.STUDENT, alice),
        Who("student B on A's things", Role.STUDENT, bob, owns=False),
        Who("TA", Role.TA, tool.token("tara", ta=True)),
        Who("instructor", Role.INSTRUCTOR, tool.token("prof", staff=True)),
        Who("LMS learner of this course", Role.STUDENT, learner.session.cookies["grader_session"], owns=False),
        Who("LMS instructor of another course", None),
    ], number, asked.body["id"])


QUERIES = {"/api/reviews": "submission={submission}", "/api/audit": "student=alice", "/staff/audit": "student=alice",
           "/api/analytics": "exercise=add", "/api/gradebook": "format=json"}


def concrete(path: str, world: World) -> str:
    number = world.request if "regrade-requests" in path else world.submission
    path = (path.replace("{number}", str(number)).replace("{exercise}", "add")
            .replace("{student:path}", "alice").replace("{page:path}", "index.html"))
    query = QUERIES.get(path, "").format(submission=world.submission)
    return path + (f"?{query}" if query else "")


def call(tool: Served, method: str, path: str, access: Access, who: Who) -> tuple[int, str]:
    """The call as its kind of client makes it: the API with a Bearer token, a page or a form as a signed-in
    browser from the server's own page (its session and CSRF cookies, the form's CSRF field)."""
    headers = {"Origin": tool.url, "Sec-Fetch-Site": "same-origin"}
    token = who.token if access.answer == "api" else None
    if access.answer != "api":
        cookies = [f"grader_csrf={CSRF}", f"grader_lti_csrf={CSRF}"]
        headers["Cookie"] = "; ".join(cookies + ([f"grader_session={who.token}"] if who.token else []))
    body, kind = None, None
    if method == "POST":
        body, kind = ((b"{}", "application/json") if access.answer == "api" else
                      (urlencode({"csrf": CSRF, "token": who.token}).encode(), "application/x-www-form-urlencoded"))
    answer = tool.call(method, path, token, body, kind, headers=headers, follow=False)
    text = answer.body if isinstance(answer.body, str) else json.dumps(answer.body)
    return answer.status, text


def test_every_route_declares_who_may_call_it() -> None:
    routes = _routes()
    assert len(routes) >= 50
    assert {access.answer for _, _, access in routes} == {"api", "page", "lti"}


def test_a_route_without_a_declaration_is_refused_by_the_table() -> None:
    from starlette.responses import Response
    from starlette.routing import Route

    with pytest.raises(TypeError, match="declares no Access"):
        declared([Route("/new", lambda request: Response(""), methods=["GET"])])


@pytest.mark.parametrize("path,method,access", _routes(), ids=[f"{m} {p}" for p, m, _ in _routes()])
def test_each_caller_gets_what_the_declaration_says(tool: Served, world: World, path: str, method: str,
                                                     access: Access) -> None:
    where = concrete(path, world)
    for who in world.callers:
        status, text = call(tool, method, where, access, who)
        caller = Caller(who.name, who.role) if who.role is not None else None
        allowed = access.admits(caller) and (not access.owner or who.owns or who.role is not Role.STUDENT)
        seen = f"{who.name}: {method} {where} -> {status} {text[:200]}"
        assert status < 500 and "Traceback" not in text, seen
        if who.name not in ("student A", "TA", "instructor"):
            assert MARK not in text and world.callers[1].token not in text, seen  # nothing of A's leaks
        if access.proof:  # a launch's signature, a valid token in the form: what no role gives
            continue
        if allowed:
            assert status not in (401, 403), seen
        else:
            assert status in (401, 403, 404), seen


def test_the_ta_table_in_the_docs_is_the_declarations() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "ta.md").read_text()
    found = re.search(r"<!-- access table -->\n(.*?)<!-- end -->", doc, re.S)
    assert found and found[1] == access_table(), "docs/ta.md's table is stale: python -m grader.server.app"


MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"


@pytest.mark.parametrize("roles,role", [
    ((f"{MEMBERSHIP}#Learner", INSTITUTION_INSTRUCTOR), Role.STUDENT),
    ((f"{MEMBERSHIP}#Learner", "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator"), Role.STUDENT),
    ((f"{MEMBERSHIP}#Administrator", f"{MEMBERSHIP}#ContentDeveloper", f"{MEMBERSHIP}#Mentor"), Role.STUDENT),
    (("https://evil.example/roles#Instructor", "Instructor#Instructor"), Role.STUDENT),  # no suffix match
    ((f"{MEMBERSHIP}#Instructor",), Role.INSTRUCTOR),
    ((f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}/Instructor#TeachingAssistant"), Role.TA),  # the narrower
    ((f"{MEMBERSHIP}#TeachingAssistant",), Role.TA),
    (("x", 3, None, {"role": f"{MEMBERSHIP}#Instructor"}), Role.STUDENT),
], ids=["institution instructor", "system admin", "course admin, developer, mentor", "look-alikes",
        "instructor", "TA sent with instructor", "TA", "odd types"])
def test_only_the_course_s_own_teaching_roles_make_staff(roles: tuple[object, ...], role: Role) -> None:
    from grader.platforms.lti.store import role_of

    assert role_of(list(roles)) is role
    assert role_of(f"{MEMBERSHIP}#Instructor") is Role.STUDENT  # a string, not a list: nothing


def test_an_institution_instructor_who_is_a_learner_here_is_a_student(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    launched = browser.sign_in(sub="user-ivan", roles=(LEARNER, INSTITUTION_INSTRUCTOR))
    assert launched.status_code == 303, launched.text
    token = browser.session.cookies["grader_session"]
    assert tool.call("GET", "/api/gradebook", token).status == 403
    assert tool.call("GET", "/api/lti/status", token).status == 403
    assert tool.call("GET", "/api/submissions", token).body["submissions"] == []


def test_a_launch_from_another_course_is_refused_with_a_page_that_says_why(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    browser.sign_in(sub="user-first", roles=(LEARNER,))  # this course: bound by the first launch (if not yet)
    other = Browser(platform)
    refused = other.sign_in(sub="user-olga", roles=(f"{MEMBERSHIP}#Instructor",),
                            **{f"{CLAIM}context": {"id": "course-9", "title": "<b>Course nine</b>"}})
    assert refused.status_code == 403 and "another course of the LMS" in refused.text
    assert "<b>Course nine</b>" not in refused.text and "&lt;b&gt;Course nine" in refused.text
    assert "grader_session" not in other.session.cookies
    nameless = Browser(platform).sign_in(sub="user-nemo", **{f"{CLAIM}context": None})
    assert nameless.status_code == 403 and "names no course" in nameless.text
