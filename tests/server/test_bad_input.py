"""No request makes the server answer 5xx, store a value it cannot serve back, or show a student one of
its paths: ids are ASCII integers in range, scores finite and within the exercise's points, JSON strict
both ways, a body over the limit is a 413 however it is sent, and a format that needs a roster says so."""

from __future__ import annotations

import hashlib
import http.client
import json
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import pytest

from grader.server.client import multipart
from grader.server.state import State
from tests.conftest import ROOT
from tests.server.conftest import ADD, CSRF, WRONG, Answer, Served, signed_in

SCHEMA = json.loads((ROOT / "grader" / "schemas" / "server-api.schema.json").read_text())
NOT_IDS = ["²", "٣", "１", "1" * 30, "9223372036854775808", "0", "-1", "+1", " 1", "1 ", "1e3", "0x1", "1.0",
           "\U0001f4a9", "\x00", "%00", "1%00", "١٢"]


def strict(text: str) -> Any:
    """JSON as any parser must take it: NaN and Infinity are not JSON."""
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def raw(served: Served, method: str, target: str, body: bytes = b"", headers: dict[str, str] | None = None,
        chunked: bool = False) -> Answer:
    """A request exactly as given (a path urllib would refuse; a chunked body, no Content-Length)."""
    where = urlsplit(served.url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        if chunked:
            connection.putheader("Transfer-Encoding", "chunked")
        elif body or method == "POST":
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders()
        if chunked:
            for start in range(0, len(body), 16 * 1024):
                piece = body[start:start + 16 * 1024]
                try:
                    connection.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                except OSError:
                    break  # the server answered and closed: read what it said
            else:
                connection.send(b"0\r\n\r\n")
        elif body:
            connection.send(body)
        response = connection.getresponse()
        data = response.read()
        kind = response.getheader("Content-Type", "")
        return Answer(response.status, json.loads(data) if "json" in kind else data.decode(errors="replace"),
                      {k.lower(): v for k, v in response.getheaders()})
    finally:
        connection.close()


def no_tracebacks(served: Served) -> None:
    log = served.errors.read_text()
    assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]


def test_ids_that_are_not_ascii_integers_in_range_are_not_found(served: Served) -> None:
    alice = served.token("alice")
    served.start("--workers", "1")
    served.wait(alice, served.submit(alice, "add", ADD).body["id"])
    for text in NOT_IDS:
        path = quote(text, safe="%")
        api = raw(served, "GET", f"/api/submissions/{path}", headers={"Authorization": f"Bearer {alice}"})
        assert api.status == 404 and api.body == {"error": "no such submission"}, (text, api)
        page = raw(served, "GET", f"/submissions/{path}", headers=signed_in(alice))
        assert page.status == 404 and "No such submission." in page.body, (text, page)
    assert served.call("GET", "/api/submissions/1", alice).status == 200
    no_tracebacks(served)


def test_a_wait_that_is_not_a_number_of_seconds_is_refused(served: Served) -> None:
    alice = served.token("alice")
    served.start("--workers", "1")
    number = served.submit(alice, "add", ADD).body["id"]
    served.wait(alice, number)
    for wait in ("nan", "inf", "-inf", "1e999", "1e3", "abc", "٣", "1_0", "0x10", "10" * 40):
        answer = served.call("GET", f"/api/submissions/{number}?wait={quote(wait)}", alice)
        assert answer.status == 422 and "wait" in answer.body["error"], (wait, answer)
    for wait in ("", "0", "-5", "0.5", "99999"):  # held between 0 and a minute; done already: no wait
        assert served.call("GET", f"/api/submissions/{number}?wait={wait}", alice).status == 200
    no_tracebacks(served)


BAD_SCORES = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "-1", "-0.5", "4.5", "1e308", "10" + "0" * 400,
              '"3"', '"nan"', "true", "null", "[]", "{}"]


def overrides(served: Served, staff: str) -> list[Any]:
    book = served.call("GET", "/api/gradebook", staff)
    assert book.status == 200
    strict(json.dumps(book.body))
    return [a.get("override") for a in book.body["applied"]]


def test_an_override_that_is_not_a_finite_score_within_the_exercises_points_is_refused_and_not_stored(
        served: Served) -> None:
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--workers", "1")
    served.wait(alice, served.submit(alice, "add", WRONG).body["id"])

    def send(body: bytes | str) -> Answer:
        data = body.encode() if isinstance(body, str) else body
        return served.call("POST", "/api/overrides", staff, data, "application/json")

    for score in BAD_SCORES:  # add is worth 4 points
        answer = send(f'{{"student": "alice", "exercise": "add", "score": {score}, "reason": "r"}}')
        assert answer.status == 422 and "score" in answer.body["error"], (score, answer)
    for body, status in (('{"student": "nobody", "exercise": "add", "score": 1}', 404),
                         ('{"student": "alice", "exercise": "nothing", "score": 1}', 404),
                         ('{"student": "alice\\u0000", "exercise": "add", "score": 1}', 422),
                         ('{"student": "alice", "exercise": "add\\ud800", "score": 1}', 422),
                         ('{"student": ["alice"], "exercise": "add", "score": 1}', 422),
                         ('{"student": 7, "exercise": "add", "score": 1}', 422),
                         ('{"student": "' + "a" * 300 + '", "exercise": "add", "score": 1}', 422),
                         ('{"student": "alice", "exercise": "add", "score": 1, "reason": "' + "r" * 501 + '"}', 422),
                         ('{"student": "alice", "exercise": "add", "score": 1, "reason": 5}', 422),
                         ('{"student": "alice", "exercise": "add"}', 422),
                         ('["alice", "add", 1]', 422), ('"alice"', 422), ("", 422), ("{", 422),
                         ("[" * 100_000 + "]" * 100_000, 422), ('{"a": ' * 50_000 + "1" + "}" * 50_000, 422),
                         (b'{"student": "\xff\xfe"}', 422), ("\ufeff{}", 422)):
        answer = send(body)
        assert answer.status == status and answer.body["error"], (body[:80], answer)
    assert overrides(served, staff) == [None]

    form = {"csrf": CSRF, "student": "alice", "exercise": "add", "reason": "typed"}
    for score in ("nan", "inf", "1e999", "1e3", "-1", "4.5", "٣", "1_0", "", " ", "0x1", "3,5"):
        answer = served.call("POST", "/staff/override", None, urlencode({**form, "score": score}).encode(),
                             "application/x-www-form-urlencoded", headers=signed_in(staff), follow=False)
        assert answer.status == 422 and "score" in answer.body, (score, answer)
    assert overrides(served, staff) == [None]

    assert send('{"student": "alice", "exercise": "add", "score": 4, "reason": "full marks"}').status == 200
    assert served.call("POST", "/staff/override", None, urlencode({**form, "score": "2.5"}).encode(),
                       "application/x-www-form-urlencoded", headers=signed_in(staff), follow=False).status == 303
    assert [o["score"] for o in overrides(served, staff)] == [2.5]
    no_tracebacks(served)


def test_the_gradebook_is_strict_json_even_with_an_infinite_override_stored_before_scores_were_checked(
        served: Served) -> None:
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--workers", "1")
    served.wait(alice, served.submit(alice, "add", ADD).body["id"])
    with sqlite3.connect(served.state / "state.sqlite") as db:  # as the server used to store 1e999
        db.execute("INSERT INTO overrides VALUES ('alice', 'add', 9e999, 'old', 'prof', 0)")
    book = raw(served, "GET", "/api/gradebook", headers={"Authorization": f"Bearer {staff}"})
    assert book.status == 200 and book.body["applied"][0]["score"] == 4.0
    assert served.call("GET", "/api/gradebook?format=csv", staff).status == 200
    no_tracebacks(served)


def test_a_gradebook_format_that_needs_a_roster_is_refused_with_the_reason_without_one(served: Served) -> None:
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--workers", "1")
    served.wait(alice, served.submit(alice, "add", ADD).body["id"])
    moodle = served.call("GET", "/api/gradebook?format=moodle", staff)
    assert moodle.status == 422 and "--roster" in moodle.body["error"]
    for kind in ("xlsx", "", "JSON", "json\x00", "csv;", "\u0131son"):
        answer = served.call("GET", f"/api/gradebook?format={quote(kind)}", staff)
        assert answer.status == 422 and "format is one of" in answer.body["error"], kind
    assert served.call("GET", "/api/gradebook?format=canvas", staff).status == 200
    no_tracebacks(served)


def test_a_moodle_gradebook_with_a_roster_is_written(served: Served) -> None:
    roster = served.root / "roster.csv"
    roster.write_text("folder,name,email\nalice,Alice A,alice@example.org\n")
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--workers", "1", "--roster", str(roster))
    served.wait(alice, served.submit(alice, "add", ADD).body["id"])
    moodle = served.call("GET", "/api/gradebook?format=moodle", staff)
    assert moodle.status == 200 and "alice@example.org" in moodle.body


def test_a_body_over_the_limit_is_a_413_however_it_is_sent(served: Served) -> None:
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--workers", "1", "--max-upload", "1")
    body, kind = multipart({"exercise": "add"}, "file", "add.py", b"#" * (400 * 1024) + ADD.encode())
    bearer = {"Authorization": f"Bearer {alice}", "Content-Type": kind}
    chunked = raw(served, "POST", "/api/submissions", body, bearer, chunked=True)
    assert chunked.status == 413 and "limit" in chunked.body["error"], chunked
    small, small_kind = multipart({"exercise": "add"}, "file", "add.py", b"#" * 1500 + ADD.encode())
    over_the_file = raw(served, "POST", "/api/submissions", small, {**bearer, "Content-Type": small_kind}, chunked=True)
    assert over_the_file.status == 413  # under the body's limit, over the file's
    form, form_kind = multipart({"exercise": "add", "csrf": CSRF}, "file", "add.py", b"#" * (400 * 1024))
    page = raw(served, "POST", "/submit", form, {**signed_in(alice), "Content-Type": form_kind}, chunked=True)
    assert page.status == 413 and "over the limit" in page.body, page
    json_body = b'{"student": "alice", "exercise": "add", "score": 1, "reason": "' + b"r" * (400 * 1024) + b'"}'
    override = raw(served, "POST", "/api/overrides", json_body,
                   {"Authorization": f"Bearer {staff}", "Content-Type": "application/json"}, chunked=True)
    assert override.status == 413, override
    assert served.call("GET", "/api/submissions", staff).body["submissions"] == []
    assert served.submit(alice, "add", ADD).status == 202  # and the server goes on
    no_tracebacks(served)


BROKEN = "title: Broken\nkind: function\nentry: f\ntests: [oops\n"


def test_an_exercise_that_cannot_be_graded_names_no_server_path_to_a_student(served: Served) -> None:
    (served.exercises / "broken.yaml").write_text(BROKEN)
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    # A hand-in stored before its spec broke (as the server stores an upload), graded after a restart.
    state = State(served.state)
    state.store("alice", "broken", "broken.py", ".py", ADD.encode(), hashlib.sha256(ADD.encode()).hexdigest())
    state.close()
    served.start("--workers", "1")
    refused = served.submit(alice, "broken", ADD)
    assert refused.status == 503 and "broken" in refused.body["error"]
    graded = served.wait(alice, 1)
    assert graded["status"] == "error" and graded["error"] == "the exercise cannot be graded"
    assert "broken.yaml" in served.call("GET", "/api/submissions/1", staff).body["error"]  # staff see why
    seen = [refused, served.call("GET", "/api/submissions", alice), served.call("GET", "/api/submissions/1", alice),
            served.call("GET", "/submissions/1", headers=signed_in(alice)),
            served.call("GET", "/me", headers=signed_in(alice))]
    folders = {str(served.root), str(served.root.resolve()), str(served.exercises), str(served.state)}
    for answer in seen:
        text = json.dumps(answer.body)
        assert answer.status in (200, 503) and not any(folder in text for folder in folders), text


def test_health_says_ok_to_anyone_and_details_to_staff(served: Served) -> None:
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--workers", "1")
    for who in ({}, {"Authorization": f"Bearer {alice}"}, signed_in(alice), {"Authorization": "Bearer gt_forged"}):
        assert raw(served, "GET", "/api/health", headers=who).body == {"status": "ok"}, who
    for who in ({"Authorization": f"Bearer {staff}"}, signed_in(staff)):
        details = raw(served, "GET", "/api/health", headers=who).body
        assert details["exercises"] == ["add", "guess", "shout"] and details["workers"] == 1
        assert details["queue"] == {"queued": 0, "running": 0, "done": 0, "error": 0}
        import jsonschema

        jsonschema.validate(details, {**SCHEMA, "$ref": "#/$defs/health"})


# Each route and method, with its path's placeholders.
ROUTES = [("GET", "/api/health"), ("POST", "/api/submissions"), ("GET", "/api/submissions"),
          ("GET", "/api/submissions/{}"), ("GET", "/api/gradebook"), ("POST", "/api/regrade"),
          ("POST", "/api/overrides"), ("GET", "/"), ("POST", "/login"), ("POST", "/logout"), ("GET", "/me"),
          ("POST", "/submit"), ("GET", "/submissions/{}"), ("GET", "/staff"), ("GET", "/staff/students/{}"),
          ("POST", "/staff/regrade"), ("POST", "/staff/override"), ("GET", "/staff/similarity"),
          ("GET", "/staff/similarity/{}")]
# Values a hostile client puts wherever a value goes: huge numbers, odd Unicode, wrong types, forgeries.
HOSTILE = ["1" * 40, "-1", "1e999", "NaN", "²", "\x00", "\ud800", "\u202egnp.py", "ﬁ", "İ", "..", "../../state.sqlite",
           "%", "a" * 5000, "\r\nX-Injected: 1", "<script>alert(1)</script>", "' OR 1=1 --", "{}", "[]", "null",
           "true"]
JSON_BODIES = [b"", b"{", b"NaN", b"1e999", b"[]", b'"x"', b"[" * 50_000, b"\xff\xfe\x00", b'{"exercise": {}}',
               b'{"exercise": 1e999, "all": "yes"}', b'{"student": null, "exercise": null, "score": null}',
               b'{"score": -0.0, "student": "alice", "exercise": "add"}', b'{"exercise": "\\ud800"}']


def _text(value: str) -> str:
    return value.encode("utf-8", "surrogatepass").decode("latin-1")  # as bytes on the wire


def test_hostile_requests_to_every_route_get_a_4xx_and_never_a_5xx_a_traceback_or_a_path(served: Served) -> None:
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--workers", "1")
    served.wait(alice, served.submit(alice, "add", WRONG).body["id"])
    folders = (str(served.root), str(served.state))
    answers: list[tuple[str, Answer]] = []
    callers: list[dict[str, str]] = [{}, {"Authorization": f"Bearer {alice}"}, {"Authorization": f"Bearer {staff}"},
                                     signed_in(staff), {"Authorization": "Bearer " + "x" * 300}]

    def send(method: str, target: str, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        for caller in callers:
            answers.append((f"{method} {target[:80]} {body[:40]!r} {headers}",
                            raw(served, method, target, body, {**caller, **(headers or {})})))

    for method, route in ROUTES:
        for value in HOSTILE:
            quoted = quote(value.encode("utf-8", "surrogatepass"), safe="")
            target = route.format(quoted) if "{}" in route else route
            query = "&".join(f"{key}={quoted}" for key in ("exercise", "student", "status", "format", "wait"))
            if method == "GET":
                send(method, f"{target}?{query}")
                continue
            fields = {"exercise": value, "csrf": CSRF, "student": value, "score": value, "reason": value,
                      "token": value}
            encoded = urlencode({k: v.encode("utf-8", "surrogatepass") for k, v in fields.items()}).encode()
            send(method, target, encoded, {"Content-Type": "application/x-www-form-urlencoded"})
            body, kind = multipart({"exercise": value if "\ud800" not in value else "add", "csrf": CSRF},
                                   "file", "x.py", b"print(1)\n")
            send(method, target, body, {"Content-Type": kind})
            send(method, target, body.replace(b'filename="x.py"', b'filename="' + _text(value).encode("latin-1")
                                              + b'.py"'), {"Content-Type": kind})
        if method == "POST":
            for body in JSON_BODIES:
                send(method, route.format("1"), body, {"Content-Type": "application/json"})
            for kind in ("multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=\x7f",
                         "application/x-www-form-urlencoded; charset=utf-16", "text/plain", "*/*", "\u00e9"):
                send(method, route.format("1"), b"--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--x--\r\n",
                     {"Content-Type": _text(kind)})
    for what, answer in answers:
        assert answer.status < 500, (what, answer)
        shown = answer.body if isinstance(answer.body, str) else json.dumps(answer.body)
        assert not any(folder in shown for folder in folders), (what, shown[:500])
        assert "X-Injected" not in str(answer.headers)
    assert len(answers) > 3000
    no_tracebacks(served)
    assert served.call("GET", "/api/submissions", staff).body["submissions"][0]["status"] == "done"


ODD_NAMES = ["nul\x00.py", "\ud800.py", "\u202egnp.py", "a" * 1000 + ".py", "../../x.py", "C:\\evil\\x.py",
             "tab\there.py"]


def test_an_odd_file_name_is_stored_as_text_and_shown_escaped(served: Served) -> None:
    alice = served.token("alice")
    served.start("--workers", "1")
    for name in ODD_NAMES:
        body, kind = multipart({"exercise": "add"}, "file", "add.py", ADD.encode())
        body = body.replace(b'filename="add.py"', b'filename="' + name.encode("utf-8", "surrogatepass") + b'"')
        sent = served.call("POST", "/api/submissions", alice, body, kind)
        assert sent.status == 202, (name, sent)
        graded = served.wait(alice, sent.body["id"])
        assert graded["status"] == "done" and len(graded["file"]) <= 200, name
        assert not any(ord(c) < 32 or 0xD800 <= ord(c) < 0xE000 or c == "\u202e" for c in graded["file"]), name
    page = served.call("GET", "/me", headers=signed_in(alice))
    assert page.status == 200 and "\u202e" not in page.body and "\x00" not in page.body
    assert "../../x.py" in page.body  # a name is shown as sent, as text
    no_tracebacks(served)
