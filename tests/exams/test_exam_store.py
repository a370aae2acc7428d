"""The exams' store on SQLite and PostgreSQL: two tabs starting at once make one start, and two servers
sweeping one database at once submit each student's last drafts once, never again after a restart."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.server import drafts, exams_store
from grader.server.exams import Exam
from grader.server.state import State
from tests.server.test_postgres import database  # noqa: F401  (the fixture)

NOW = time.time()
EXAM = Exam("quiz", "Quiz", ("add", "shout"), NOW - 3600, NOW + 3600, 600.0)


@pytest.fixture(params=["sqlite", "postgres"])
def servers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[State, State]]:
    url = request.getfixturevalue("database") if request.param == "postgres" else None
    one, two = State(tmp_path / "state", url, "one"), State(tmp_path / "state", url, "two")
    yield one, two
    one.close()
    two.close()


def test_two_servers_sweeping_one_database_submit_each_student_s_last_drafts_once(servers: tuple[State, State]) -> None:
    one, two = servers
    begun = exams_store.start(one, "quiz", "ana", NOW - 700, False, "10.0.0.1")
    assert exams_store.start(two, "quiz", "ana", NOW - 650, False, "10.0.0.2") == begun  # a second tab: the same
    exams_store.start(one, "quiz", "prof", NOW - 700, True, None)  # staff's test run
    drafts.save(one, "ana", "add", "def add(a, b):\n    return a + b\n", 0, now=NOW - 690)
    drafts.save(two, "ana", "add", "def add(a, b):\n    return b + a\n", 1, now=NOW - 680)
    drafts.save(one, "prof", "shout", "print(input().upper())\n", 0, now=NOW - 690)
    drafts.save(one, "ben", "add", "# ben never started\n", 0, now=NOW - 690)
    assert exams_store.sweep(one, {"quiz": EXAM}, lambda e: ".py", NOW - 200, "one") == []  # time left
    made = exams_store.sweep(one, {"quiz": EXAM}, lambda e: ".py", NOW, "one") + \
        exams_store.sweep(two, {"quiz": EXAM}, lambda e: ".py", NOW, "two")
    assert len(made) == 2
    handed = {one.get(n).student: one.get(n) for n in made}  # type: ignore[union-attr]
    assert set(handed) == {"ana", "prof"} and handed["ana"].exercise == "add"
    assert one.path_of(handed["ana"]).read_text().endswith("return b + a\n")  # the last save, revision 2
    assert exams_store.test_run_submissions(one) == {handed["prof"].id}
    assert exams_store.sweep(two, {"quiz": EXAM}, lambda e: ".py", NOW + 60, "two") == []  # once, for good
    events = [event.what for _, event in exams_store.log(one, "quiz", "ana")]
    assert events == ["opened", "submitted", "disconnect", "ended"]  # no word from a page since the start


def test_the_log_tells_a_silent_page_and_a_new_address(servers: tuple[State, State]) -> None:
    one, _ = servers
    begun = exams_store.start(one, "quiz", "cy", NOW, False, "10.0.0.1")
    exams_store.contact(one, EXAM, begun, NOW + 10, "10.0.0.1")  # the page's heartbeat: nothing to tell
    exams_store.contact(one, EXAM, begun, NOW + 200, "10.7.7.7", "save", {"revision": 1})  # 190 s later, elsewhere
    events = [(event.what, event.detail) for _, event in exams_store.log(one, "quiz", "cy")]
    assert [what for what, _ in events] == ["opened", "disconnect", "address", "save"]
    assert events[1][1]["seconds"] == 190 and events[2][1] == {"from": "10.0.0.1", "to": "10.7.7.7"}
