"""Drafts: a student's work saved as they type, each save answered with a receipt; a save edited from an
older revision (a second tab) is refused with what the server holds, so two tabs never fork the work and
nothing the last receipt holds is lost. The same on SQLite and PostgreSQL; hostile bodies are 4xx."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.server import drafts
from grader.server.state import State
from tests.server.conftest import ADD, Served
from tests.server.test_postgres import database  # noqa: F401  (the fixture)


def put(served: Served, token: str, exercise: str, body: object) -> tuple[int, dict]:
    answer = served.call("PUT", f"/api/drafts/{exercise}", token, json.dumps(body).encode(), "application/json")
    return answer.status, answer.body


@pytest.fixture(params=["sqlite", "postgres"])
def state(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[State]:
    url = request.getfixturevalue("database") if request.param == "postgres" else None
    made = State(tmp_path / "state", url)
    yield made
    made.close()


def test_two_tabs_saving_alternately_keep_exactly_what_the_last_receipt_holds(state: State) -> None:
    first = drafts.save(state, "eve", "add", "# tab one\n", base=0)
    with pytest.raises(drafts.Stale) as stale:  # tab two opened before any save: it began from nothing
        drafts.save(state, "eve", "add", "# tab two\n", base=0)
    assert stale.value.current is not None and stale.value.current.code == "# tab one\n"
    second = drafts.save(state, "eve", "add", "# tab two, merged\n", base=stale.value.current.revision)
    with pytest.raises(drafts.Stale):  # tab one saves again from its own, now old, revision
        drafts.save(state, "eve", "add", "# tab one again\n", base=first.revision)
    kept = drafts.latest(state, "eve", "add")
    assert kept is not None and kept.receipt() == second.receipt() and kept.code == "# tab two, merged\n"
    assert kept.sha256 == hashlib.sha256(b"# tab two, merged\n").hexdigest()
    assert drafts.latest(state, "bob", "add") is None  # one draft per student and exercise


def test_a_saved_draft_is_answered_with_a_receipt_and_read_back(served: Served) -> None:
    served.start()
    eve, bob = served.token("eve"), served.token("bob")
    assert served.call("GET", "/api/drafts/add", eve).body["revision"] == 0
    status, body = put(served, eve, "add", {"code": ADD, "base": 0})
    assert status == 200, body
    receipt = body["receipt"]
    assert receipt["revision"] == 1 and receipt["sha256"] == hashlib.sha256(ADD.encode()).hexdigest()
    assert receipt["bytes"] == len(ADD) and body["server_time"].endswith("Z")
    status, body = put(served, eve, "add", {"code": "# older\n", "base": 0})
    assert status == 409 and body["current"]["code"] == ADD and body["current"]["revision"] == 1
    assert served.call("GET", "/api/drafts/add", eve).body["code"] == ADD
    assert served.call("GET", "/api/drafts/add", bob).body["code"] is None  # Eve's is hers alone
    served.stop()
    served.start()  # committed before the receipt: a restart keeps it
    assert served.call("GET", "/api/drafts/add", eve).body["sha256"] == receipt["sha256"]


HOSTILE = [
    ([], 422), ({"code": 5, "base": 0}, 422), ({"code": "x"}, 422), ({"code": "x", "base": -1}, 422),
    ({"code": "x", "base": True}, 422), ({"code": "x", "base": 10**30}, 422), ({"code": "x", "base": 1.5}, 422),
    ({"code": "a\0b", "base": 0}, 422), ({"code": "\ud800", "base": 0}, 422),
    ({"code": "x" * 2_100_000, "base": 0}, 413),
]


def test_a_hostile_save_is_refused_with_a_reason(served: Served) -> None:
    served.start()
    mallory = served.token("mallory")
    for body, status in HOSTILE:
        got, answer = put(served, mallory, "add", body)
        assert got == status and answer["error"], (body if len(str(body)) < 100 else "big", answer)
    not_json = served.call("PUT", "/api/drafts/add", mallory, b"{\"code\": NaN", "application/json")
    assert not_json.status == 422
    assert "Traceback" not in served.errors.read_text()


def test_odd_names_and_no_token_are_refused(served: Served) -> None:
    served.start()
    eve = served.token("eve")
    assert put(served, eve, "no-such", {"code": "", "base": 0})[0] == 404
    assert served.call("GET", "/api/drafts/%E2%80%AE%00", eve).status == 404
    assert put(served, "", "add", {"code": "", "base": 0})[0] == 401
    status, body = put(served, eve, "add", {"code": "print('ñ \u202e é')\n", "base": 0})
    assert status == 200 and body["receipt"]["bytes"] == len("print('ñ \u202e é')\n".encode())
