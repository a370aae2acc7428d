"""The human half of grading through the API of a real `grader serve`: a TA reviews a submission (rubric
items, comments on lines of its code), releases it, and only then does the student see it and does it
count; a review survives a regrade; a student asks for a regrade and staff answer on the same resource;
and every score change is a row of the audit, exported as CSV."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from tests.server.conftest import CSRF, Answer, Served, signed_in
from tests.server.test_postgres import database  # noqa: F401 - a fixture: a throwaway PostgreSQL

RUBRIC = """\
rubric:
  - id: clear-names
    points: 1
    description: Names say what they hold
  - id: no-docstring
    points: -1
    description: The function has no docstring
  - id: copied-code
    points: -2
    description: The same code is written twice
"""
# Passes add(1, 2), add(-1, 1) and add(5000, 1) but not add(2, 2): 3 of 4 points.
PARTLY = "def add(a, b):\n    if a == 2:\n        return 0\n    return a + b\n"


def post(served: Served, path: str, token: str, body: object) -> Answer:
    return served.call("POST", path, token, json.dumps(body).encode(), "application/json")


def with_rubric(served: Served) -> None:
    spec = served.exercises / "add.yaml"
    spec.write_text(spec.read_text() + RUBRIC)


def class_of_two(served: Served) -> tuple[str, str, str, int]:
    """alice's graded submission of add (3 of 4 points), bob signed up; (ta, alice, bob, alice's id)."""
    with_rubric(served)
    ta, alice, bob = served.token("ta", staff=True), served.token("alice"), served.token("bob")
    served.start("--workers", "1")
    number = served.submit(alice, "add", PARTLY).body["id"]
    assert served.wait(alice, number)["report"]["score"] == 3.0
    return ta, alice, bob, number


def cell(served: Served, ta: str, student: str = "alice", exercise: str = "add") -> dict[str, Any]:
    book = served.call("GET", "/api/gradebook", ta).body
    return next(a for a in book["applied"] if (a["student"], a["exercise"]) == (student, exercise))


def test_a_review_counts_and_shows_only_once_released_and_the_gradebook_says_where_each_part_came_from(
        served: Served) -> None:
    ta, alice, _, number = class_of_two(served)
    review = {"submission": number, "rubric": ["no-docstring"], "summary": "Works, mostly.",
              "comments": [{"line": 2, "text": "Why is 2 special?"}]}
    saved = post(served, "/api/reviews", ta, review)
    assert saved.status == 200, saved.body
    assert saved.body["points"] == -1 and saved.body["released"] is False
    assert saved.body["comments"] == [{"line": 2, "text": "Why is 2 special?"}]

    pending = cell(served, ta)
    assert pending["score"] == 3.0  # pending: staff see it, marked, and it does not count
    assert pending["review"]["released"] is False and pending["review"]["items"] == ["no-docstring"]
    assert pending["parts"] == {"tests": 3.0, "rubric": 0.0, "regrade": None, "late_penalty": 0.0,
                               "override": None, "from": "tests"}
    assert served.call("GET", f"/api/reviews?submission={number}", alice).status == 404  # nothing of it
    assert "review_points" not in served.call("GET", f"/api/submissions/{number}", alice).body
    assert "Why is 2 special?" not in served.call("GET", f"/submissions/{number}/review", alice).body

    released = post(served, "/api/reviews/release", ta, {"exercise": "add"})
    assert released.status == 200 and released.body == {"released": [number]}
    counted = cell(served, ta)
    assert counted["score"] == 2.0 and counted["review"]["released"] is True
    assert counted["parts"]["rubric"] == -1 and counted["parts"]["from"] == "tests+rubric"
    seen = served.call("GET", f"/api/reviews?submission={number}", alice)
    assert seen.status == 200 and seen.body["comments"][0]["line"] == 2
    mine = served.call("GET", f"/api/submissions/{number}", alice).body
    assert mine["counted_score"] == 2.0 and mine["review_points"] == -1
    page = served.call("GET", f"/submissions/{number}/review", alice).body
    assert "Comment on line 2:</strong> Why is 2 special?" in page
    assert post(served, "/api/reviews/release", ta, {"exercise": "add"}).body == {"released": []}  # once


def test_a_review_survives_a_regrade_and_stays_tied_to_the_code_it_comments_on(served: Served) -> None:
    ta, alice, _, number = class_of_two(served)
    post(served, "/api/reviews", ta, {"submission": number, "rubric": ["clear-names"],
                                      "comments": [{"line": 4, "text": "good"}]})
    post(served, "/api/reviews/release", ta, {"student": "alice"})
    assert cell(served, ta)["score"] == 4.0  # 3 + 1, held at the exercise's 4 points
    spec = served.exercises / "add.yaml"  # add(1, 2) is worth 2 points now: every add is graded again
    spec.write_text(spec.read_text().replace("    call: add(1, 2)\n    expect: 3\n",
                                             "    call: add(1, 2)\n    expect: 3\n    points: 2\n"))
    assert number in post(served, "/api/regrade", ta, {}).body["queued"]
    assert served.wait(ta, number)["report"]["score"] == 4.0
    after = cell(served, ta)
    assert after["review"]["items"] == ["clear-names"] and after["score"] == 5.0  # 4 of 5, + 1
    review = served.call("GET", f"/api/reviews?submission={number}", alice).body
    assert review["comments"] == [{"line": 4, "text": "good"}] and review["released"] is True
    changes = served.call("GET", "/api/audit?student=alice", ta).body["changes"]
    assert [(c["what"], c["who"], c["before"], c["after"]) for c in changes if c["what"] == "regrade"] == [
        ("regrade", "grader", 3.0, 4.0)]


def test_a_student_asks_for_a_regrade_staff_answer_and_change_the_score_and_the_audit_shows_every_change(
        served: Served) -> None:
    ta, alice, bob, number = class_of_two(served)
    asked = post(served, "/api/regrade-requests", alice,
                 {"submission": number, "test": "add(2, 2)", "message": "2 + 2 is 4, I return it"})
    assert asked.status == 201, asked.body
    request = asked.body["id"]
    assert {k.lower(): v for k, v in asked.headers.items()}["location"] == f"/api/regrade-requests/{request}"
    assert asked.body["status"] == "open" and asked.body["thread"][0]["author"] == "alice"
    assert served.call("GET", f"/api/regrade-requests/{request}", bob).status == 404  # another's
    assert served.call("GET", "/api/regrade-requests", bob).body == {"requests": []}
    assert [r["id"] for r in served.call("GET", "/api/regrade-requests?status=open", ta).body["requests"]] == [request]

    answer = post(served, f"/api/regrade-requests/{request}", ta,
                  {"message": "You special-case 2; half a point back for the rest.", "score": 3.5})
    assert answer.status == 200, answer.body
    assert answer.body["status"] == "answered"
    assert [(m["author"], m["staff"], m["score"]) for m in answer.body["thread"]] == [
        ("alice", False, None), ("ta", True, 3.5)]
    assert served.call("GET", f"/api/regrade-requests/{request}", alice).body["thread"] == answer.body["thread"]
    # The answer is the asked-about submission's new score (it counts: the latest), not an override.
    assert cell(served, ta)["score"] == 3.5 and cell(served, ta)["parts"]["from"] == "regrade"
    assert cell(served, ta)["parts"]["regrade"] == 3.5 and "override" not in cell(served, ta)
    assert post(served, f"/api/regrade-requests/{request}", alice, {"message": "Thanks", "score": 4}).status == 403
    assert post(served, f"/api/regrade-requests/{request}", alice, {"message": "Thanks!"}).body["status"] == "open"

    post(served, "/api/reviews", ta, {"submission": number, "rubric": ["copied-code"]})
    post(served, "/api/reviews/release", ta, {"student": "alice", "exercise": "add"})
    post(served, "/api/overrides", ta, {"student": "alice", "exercise": "add", "score": 3, "reason": "on reflection"})
    changes = served.call("GET", "/api/audit?student=alice", ta).body["changes"]
    rows = [(c["what"], c["who"], c["before"], c["after"]) for c in changes]
    # The request's row: the score that counts, before and after; the override's: the override before it.
    assert rows == [("request", "ta", 3.0, 3.5), ("review", "ta", None, -2.0), ("release", "ta", 3.5, 3.5),
                    ("override", "ta", None, 3.0)], rows
    assert changes[0]["why"].startswith(f"regrade request {request}: You special-case 2")
    exported = served.call("GET", "/api/audit?student=alice&format=csv", ta)
    assert exported.headers["content-type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(exported.body)))
    assert [row["what"] for row in table] == ["request", "review", "release", "override"]
    assert table[3]["after"] == "3.0" and table[3]["who"] == "ta"
    page = served.call("GET", "/staff/students/alice", ta).body
    assert "on reflection" in page and "release" in page  # shown on the student's staff page


def test_a_student_may_ask_about_a_rubric_item_only_once_the_review_is_released(served: Served) -> None:
    ta, alice, _, number = class_of_two(served)
    post(served, "/api/reviews", ta, {"submission": number, "rubric": ["no-docstring"]})
    about = {"submission": number, "rubric_item": "no-docstring", "message": "It has one"}
    early = post(served, "/api/regrade-requests", alice, about)
    assert early.status == 422 and "no released review" in early.body["error"]
    post(served, "/api/reviews/release", ta, {"exercise": "add"})
    asked = post(served, "/api/regrade-requests", alice, about)
    assert asked.status == 201 and asked.body["about"] == "rubric:no-docstring"
    made_up = post(served, "/api/regrade-requests", alice, {**about, "rubric_item": None, "test": "add(9, 9)"})
    assert made_up.status == 422 and "no test" in made_up.body["error"]
    both = post(served, "/api/regrade-requests", alice, {**about, "test": "add(2, 2)"})
    assert both.status == 422  # one thing at a time


BAD_REVIEWS: list[tuple[str, object, int]] = [
    ("no such submission", {"submission": 999}, 404),
    ("an id past any database's integers", {"submission": 2**70}, 422),
    ("an id that is text", {"submission": "1; DROP TABLE reviews"}, 422),
    ("an id that is a bool", {"submission": True}, 422),
    ("an unknown rubric item", {"rubric": ["made-up"]}, 422),
    ("a rubric item ticked twice", {"rubric": ["clear-names", "clear-names"]}, 422),
    ("rubric items that are not text", {"rubric": [1, 2]}, 422),
    ("a line past the code's end", {"comments": [{"line": 99, "text": "x"}]}, 422),
    ("line zero", {"comments": [{"line": 0, "text": "x"}]}, 422),
    ("a huge line", {"comments": [{"line": 10**30, "text": "x"}]}, 422),
    ("a fractional line", {"comments": [{"line": 1.5, "text": "x"}]}, 422),
    ("an empty comment", {"comments": [{"line": 1, "text": "   "}]}, 422),
    ("a comment with a NUL", {"comments": [{"line": 1, "text": "a\u0000b"}]}, 422),
    ("a comment with a lone surrogate", {"comments": [{"line": 1, "text": "\ud800"}]}, 422),
    ("a comment that reorders the text", {"comments": [{"line": 1, "text": "ok \u202e gnorw"}]}, 422),
    ("an oversized comment", {"comments": [{"line": 1, "text": "x" * 5000}]}, 422),
    ("too many comments", {"comments": [{"line": 1, "text": "x"}] * 201}, 422),
    ("a comment with another key", {"comments": [{"line": 1, "text": "x", "evil": 1}]}, 422),
    ("an oversized summary", {"summary": "x" * 5000}, 422),
]


@pytest.mark.parametrize("case", BAD_REVIEWS, ids=[c[0] for c in BAD_REVIEWS])
def test_a_review_with_a_bad_value_is_refused_with_a_reason_and_changes_nothing(served: Served,
                                                                               case: tuple[str, object, int]) -> None:
    ta, _, _, number = class_of_two(served)
    _, bad, status = case
    answer = served.call("POST", "/api/reviews", ta,
                         json.dumps({"submission": number, **bad}).encode(),  # type: ignore[dict-item]
                         "application/json")
    assert answer.status == status and answer.body["error"], answer
    assert served.call("GET", f"/api/reviews?submission={number}", ta).status == 404
    assert served.call("GET", "/api/audit?student=alice", ta).body["changes"] == []


def test_a_student_cannot_review_release_answer_read_anothers_request_or_the_audit(served: Served) -> None:
    ta, alice, bob, number = class_of_two(served)
    request = post(served, "/api/regrade-requests", alice,
                   {"submission": number, "test": "add(2, 2)", "message": "why?"}).body["id"]
    refusals = {
        "review": post(served, "/api/reviews", alice, {"submission": number, "rubric": ["clear-names"]}).status,
        "release": post(served, "/api/reviews/release", alice, {"exercise": "add"}).status,
        "answer another's": post(served, f"/api/regrade-requests/{request}", bob, {"message": "mine now"}).status,
        "ask on another's": post(served, "/api/regrade-requests", bob,
                                 {"submission": number, "test": "add(2, 2)", "message": "x"}).status,
        "read another's": served.call("GET", f"/api/regrade-requests/{request}", bob).status,
        "audit": served.call("GET", "/api/audit?student=alice", alice).status,
        "audit page": served.call("GET", "/staff/audit?student=alice", alice, follow=False).status,
        "staff asks": post(served, "/api/regrade-requests", ta,
                           {"submission": number, "test": "add(2, 2)", "message": "x"}).status,
        "a request id past any integer": served.call("GET", "/api/regrade-requests/99999999999999999999999",
                                                     alice).status,
        "a request id in other digits": served.call("GET", "/api/regrade-requests/%D9%A3", alice).status,
        "an oversized question": post(served, "/api/regrade-requests", alice,
                                      {"submission": number, "test": "add(2, 2)", "message": "x" * 5000}).status,
        "a score that is not finite": served.call("POST", f"/api/regrade-requests/{request}", ta,
                                                  b'{"message": "x", "score": 1e999}', "application/json").status,
        "a score over the points": post(served, f"/api/regrade-requests/{request}", ta,
                                        {"message": "x", "score": 5}).status,
        "an audit of nobody": served.call("GET", "/api/audit?student=nobody", ta).status,
    }
    assert refusals == {
        "review": 403, "release": 403, "answer another's": 404, "ask on another's": 404, "read another's": 404,
        "audit": 403, "audit page": 403, "staff asks": 403, "a request id past any integer": 404,
        "a request id in other digits": 404, "an oversized question": 422, "a score that is not finite": 422,
        "a score over the points": 422, "an audit of nobody": 404}
    assert served.call("GET", "/api/audit?student=alice", ta).body["changes"] == []


def test_the_api_changes_no_review_for_a_sign_in_cookie(served: Served) -> None:
    ta, _, _, number = class_of_two(served)
    for path, body in (("/api/reviews", {"submission": number, "rubric": ["clear-names"]}),
                       ("/api/reviews/release", {"exercise": "add"})):
        answer = served.call("POST", path, None, json.dumps(body).encode(), "application/json",
                             headers={**signed_in(ta), "Origin": served.url})
        assert answer.status == 403 and "Bearer" in answer.body["error"]
    assert served.call("GET", f"/api/reviews?submission={number}", ta).status == 404


def form(fields: list[tuple[str, str]]) -> tuple[bytes, str]:
    from urllib.parse import urlencode

    return urlencode(fields).encode(), "application/x-www-form-urlencoded"


SAME = {"Origin": "", "Sec-Fetch-Site": "same-origin"}  # Origin: the server's own, filled in below


def test_the_review_and_request_forms_need_their_csrf_token_and_the_servers_own_origin(served: Served) -> None:
    ta, alice, _, number = class_of_two(served)
    request = post(served, "/api/regrade-requests", alice,
                   {"submission": number, "test": "add(2, 2)", "message": "why?"}).body["id"]
    forms = [
        (ta, f"/submissions/{number}/review", [("rubric", "clear-names"), ("line", "2"), ("comment", "hm")]),
        (ta, "/staff/reviews/release", [("exercise", "add")]),
        (alice, "/regrade-requests", [("submission", str(number)), ("about", "test:add(1, 2)"), ("message", "?")]),
        (ta, f"/regrade-requests/{request}", [("message", "no"), ("score", "4")]),
    ]
    own = {**SAME, "Origin": served.url}
    for token, path, fields in forms:
        body, kind = form([("csrf", CSRF), *fields])
        for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
            answer = served.call("POST", path, None, body, kind, headers={**signed_in(token), **headers}, follow=False)
            assert answer.status == 403, (path, headers)
        stale, _ = form([("csrf", "stale"), *fields])
        assert served.call("POST", path, None, stale, kind, headers={**signed_in(token), **own},
                           follow=False).status == 403, path
    assert served.call("GET", "/api/audit?student=alice", ta).body["changes"] == []
    assert len(served.call("GET", "/api/regrade-requests", ta).body["requests"]) == 1
    for token, path, fields in forms:  # the same forms from the server's own pages go through
        body, kind = form([("csrf", CSRF), *fields])
        answer = served.call("POST", path, None, body, kind, headers={**signed_in(token), **own}, follow=False)
        assert answer.status == 303, (path, answer.body)
    whats = [c["what"] for c in served.call("GET", "/api/audit?student=alice", ta).body["changes"]]
    assert whats == ["review", "release", "request"]
    assert served.call("GET", f"/api/reviews?submission={number}", alice).body["comments"] == [
        {"line": 2, "text": "hm"}]


def test_every_page_of_reviews_requests_and_the_audit_answers_a_bad_id_or_name_with_a_4xx(served: Served) -> None:
    ta, alice, bob, number = class_of_two(served)
    request = post(served, "/api/regrade-requests", alice,
                   {"submission": number, "test": "add(2, 2)", "message": "<script>alert(1)</script>"}).body["id"]
    pages = {  # (token, path): status
        (ta, f"/submissions/{number}/review"): 200, (alice, f"/submissions/{number}/review"): 200,
        (bob, f"/submissions/{number}/review"): 404, (ta, "/submissions/0/review"): 404,
        (ta, "/submissions/99999999999999999999999/review"): 404, (ta, "/submissions/%D9%A3/review"): 404,
        (ta, "/staff/reviews"): 200, (ta, "/regrade-requests"): 200, (alice, "/regrade-requests"): 200,
        (ta, f"/regrade-requests/{request}"): 200, (alice, f"/regrade-requests/{request}"): 200,
        (bob, f"/regrade-requests/{request}"): 404, (ta, "/regrade-requests/x"): 404,
        (ta, "/staff/audit?student=alice"): 200, (ta, "/staff/audit?student=%00"): 404,
        (ta, "/staff/students/alice"): 200,
    }
    found = {key: served.call("GET", key[1], key[0]).status for key in pages}
    assert found == pages
    thread = served.call("GET", f"/regrade-requests/{request}", ta).body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in thread and "<script>" not in thread
    bad_form, kind = form([("csrf", CSRF), ("rubric", "made-up")])
    refused = served.call("POST", f"/submissions/{number}/review", None, bad_form, kind,
                          headers={**signed_in(ta), "Origin": served.url}, follow=False)
    assert refused.status == 422 and "no rubric item" in refused.body
    huge, kind = form([("csrf", CSRF), ("line", "1" * 40), ("comment", "x")])
    assert served.call("POST", f"/submissions/{number}/review", None, huge, kind,
                       headers={**signed_in(ta), "Origin": served.url}, follow=False).status == 422


def test_reviews_requests_and_the_audit_live_in_postgresql_too(served: Served, database: str) -> None:
    from tests.conftest import run_cli

    with_rubric(served)
    tokens = {}
    for name, staff in (("ta", True), ("alice", False)):
        made = run_cli("serve", "token", name, "--state", served.state, "--database", database,
                       *(("--staff",) if staff else ()))
        assert made.returncode == 0, made.stderr
        tokens[name] = made.stdout.strip()
    ta, alice = tokens["ta"], tokens["alice"]
    served.start("--workers", "1", "--database", database)
    number = served.submit(alice, "add", PARTLY).body["id"]
    served.wait(alice, number)
    assert post(served, "/api/reviews", ta, {"submission": number, "rubric": ["no-docstring"],
                                             "comments": [{"line": 2, "text": "zoë ✓"}]}).status == 200
    assert post(served, "/api/reviews", ta, {"submission": number, "rubric": ["copied-code"]}).body["points"] == -2
    assert post(served, "/api/reviews/release", ta, {"student": "alice"}).body == {"released": [number]}
    assert served.call("GET", f"/api/submissions/{number}", alice).body["counted_score"] == 1.0
    request = post(served, "/api/regrade-requests", alice,
                   {"submission": number, "rubric_item": "copied-code", "message": "Where?"}).body["id"]
    answered = post(served, f"/api/regrade-requests/{request}", ta, {"message": "Line 2 and 4", "score": 2})
    assert answered.body["status"] == "answered"
    assert cell(served, ta)["score"] == 2.0
    rows = [(c["what"], c["before"], c["after"]) for c in
            served.call("GET", "/api/audit?student=alice", ta).body["changes"]]
    assert rows == [("review", None, -1.0), ("review", -1.0, -2.0), ("release", 3.0, 1.0), ("request", 1.0, 2.0)]


def test_a_late_hand_ins_review_counts_before_the_late_rule_and_the_audit_shows_the_rule_applied(
        served: Served) -> None:
    import time

    from tests.server.test_rules import DAY, stamp

    (served.root / "grader-course.yaml").write_text(f"rules:\n  deadline: {stamp(time.time() - 1.5 * DAY)}\n"
                                                    "  late: {penalty: 10, per: day}\n")
    ta, alice, _, number = class_of_two(served)
    assert cell(served, ta)["score"] == pytest.approx(3 * 0.8)
    post(served, "/api/reviews", ta, {"submission": number, "rubric": ["no-docstring"]})
    post(served, "/api/reviews/release", ta, {"exercise": "add"})
    assert cell(served, ta)["score"] == pytest.approx((3 - 1) * 0.8)  # the rubric, then the late rule
    assert served.call("GET", f"/api/submissions/{number}", alice).body["counted_score"] == pytest.approx(1.6)
    changes = served.call("GET", "/api/audit?student=alice", ta).body["changes"]
    late = [c for c in changes if c["what"] == "late"]
    assert [(c["who"], c["before"], c["why"]) for c in late] == [("rules", 2.0, "late: 20 % off")]
    assert late[0]["after"] == pytest.approx(1.6)
    release = next(c for c in changes if c["what"] == "release")
    assert (release["before"], release["after"]) == (pytest.approx(2.4), pytest.approx(1.6))
