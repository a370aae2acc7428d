"""A request that changes something is the signed-in user's own: the API changes nothing for the sign-in
cookie (a page of another host of the same site makes the browser send it, SameSite=Strict or not), only
for `Authorization: Bearer`; the pages' forms need their CSRF token; and whatever a browser says came from
another origin (`Origin`, `Sec-Fetch-Site`) is refused. One test per route that changes something."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from grader.server.client import multipart
from tests.server.conftest import ADD, CSRF, WRONG, Answer, Served, signed_in

EVIL = "http://course.example.org.evil.example"  # a page of another site
SIBLING = "http://other.course.example"  # another host of the same site: SameSite cookies go along


def graded(served: Served) -> tuple[str, str, int]:
    """A class of two graded submissions; (the staff token, the student token, alice's submission)."""
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--workers", "1")
    number = served.submit(alice, "add", WRONG).body["id"]
    served.wait(alice, number)
    return staff, alice, number


def everything(served: Served, staff: str) -> Any:
    """What a change could have touched: the submissions and their statuses, the gradebook's overrides."""
    submissions = served.call("GET", "/api/submissions", staff).body["submissions"]
    book = served.call("GET", "/api/gradebook", staff).body
    return [(s["id"], s["status"]) for s in submissions], [a.get("override") for a in book["applied"]]


OVERRIDE = json.dumps({"student": "alice", "exercise": "add", "score": 3, "reason": "forged"}).encode()

# Each state-changing API route, as a request: (path, body, content type).
API = {
    "POST /api/overrides": ("/api/overrides", OVERRIDE),
    "POST /api/regrade": ("/api/regrade", b'{"all": true}'),
    "POST /api/submissions": ("/api/submissions", None),
}


def api_request(route: str) -> tuple[str, bytes, str]:
    path, body = API[route]
    if body is None:
        body, multipart_type = multipart({"exercise": "add"}, "file", "add.py", ADD.encode())
        return path, body, multipart_type
    return path, body, "application/json"


@pytest.mark.parametrize("route", sorted(API))
def test_the_api_changes_nothing_for_a_ta_sign_in_cookie(served: Served, route: str) -> None:
    staff, _, _ = graded(served)
    before = everything(served, staff)
    path, body, content_type = api_request(route)
    for kind in ("text/plain", content_type):  # a form's body, or even the right one, with the CSRF header
        answer = served.call("POST", path, None, body, kind,
                             headers={**signed_in(staff), "X-CSRF-Token": CSRF, "Origin": served.url})
        assert answer.status == 403 and "Bearer" in answer.body["error"], answer
    assert everything(served, staff) == before
    assert served.call("POST", path, staff, body, content_type).status in (200, 202)  # the same, with the token


FOREIGN = ({"Origin": EVIL}, {"Origin": SIBLING}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"},
           {"Sec-Fetch-Site": "same-site"}, {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
           {"Origin": "ftp://" + EVIL.split("//")[1]})


@pytest.mark.parametrize("route", sorted(API))
def test_the_api_refuses_a_change_a_browser_says_came_from_another_origin(served: Served, route: str) -> None:
    staff, _, _ = graded(served)
    before = everything(served, staff)
    path, body, content_type = api_request(route)
    for origin in FOREIGN:
        answer = served.call("POST", path, staff, body, content_type, headers=origin)
        assert answer.status == 403 and "another site" in answer.body["error"], origin
    assert everything(served, staff) == before


def form(fields: dict[str, str]) -> tuple[bytes, str]:
    from urllib.parse import urlencode

    return urlencode(fields).encode(), "application/x-www-form-urlencoded"


# Each page's form, as a member of staff signed in would send it: (path, body, content type).
PAGES: dict[str, Callable[[str], tuple[str, bytes, str]]] = {
    "POST /login": lambda token: ("/login", *form({"token": token, "csrf": CSRF})),
    "POST /logout": lambda token: ("/logout", *form({"csrf": CSRF})),
    "POST /submit": lambda token: ("/submit", *multipart({"exercise": "add", "csrf": CSRF}, "file", "add.py",
                                                         ADD.encode())),
    "POST /staff/regrade": lambda token: ("/staff/regrade", *form({"csrf": CSRF})),
    "POST /staff/override": lambda token: ("/staff/override", *form({"csrf": CSRF, "student": "alice",
                                                                     "exercise": "add", "score": "3"})),
}


@pytest.mark.parametrize("route", sorted(PAGES))
def test_a_pages_form_from_another_origin_or_without_its_csrf_token_changes_nothing(served: Served,
                                                                                   route: str) -> None:
    staff, _, _ = graded(served)
    before = everything(served, staff)
    path, body, content_type = PAGES[route](staff)
    for headers in FOREIGN:
        answer = served.call("POST", path, None, body, content_type, headers={**signed_in(staff), **headers},
                             follow=False)
        assert answer.status == 403, (headers, answer)
        assert "set-cookie" not in {name.lower() for name in answer.headers}  # not signed in, nor out
    stale = served.call("POST", path, None, body.replace(CSRF.encode(), b"stale"), content_type,
                        headers=signed_in(staff), follow=False)
    assert stale.status == 403
    assert everything(served, staff) == before
    # The same form from the server's own page goes through (a browser sends the page's origin).
    same: dict[str, str] = {"Origin": served.url, "Sec-Fetch-Site": "same-origin"}
    answer = served.call("POST", path, None, body, content_type, headers={**signed_in(staff), **same}, follow=False)
    assert answer.status == 303, answer


def test_a_form_a_browser_sends_with_a_null_origin_from_the_servers_own_page_goes_through(served: Served) -> None:
    staff, _, _ = graded(served)
    path, body, content_type = PAGES["POST /staff/override"](staff)
    answer: Answer = served.call("POST", path, None, body, content_type, follow=False,
                                 headers={**signed_in(staff), "Origin": "null", "Sec-Fetch-Site": "same-origin"})
    assert answer.status == 303
    assert everything(served, staff)[1] != [None]
