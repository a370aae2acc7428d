"""The server's state: an older database is migrated on start, keeping its rows; identical hand-ins are
graded once, as in a batch."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from grader.server.state import DATABASE, MIGRATIONS, State
from tests.server.conftest import ADD, Served


def test_a_state_folder_of_an_older_schema_is_migrated_on_start_and_keeps_its_rows(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    with sqlite3.connect(tmp_path / DATABASE) as db:
        for statement in MIGRATIONS[0]:
            db.execute(statement)
        db.execute("INSERT INTO tokens VALUES ('d', 'alice', 0, 0)")
        db.execute("PRAGMA user_version = 1")
    state = State(tmp_path)
    assert state.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    indexes = {row[1] for row in state.db.execute("PRAGMA index_list(submissions)")}
    assert "submissions_by_content" in indexes
    assert state.token("d") == ("d", "alice", False)
    state.close()
    with sqlite3.connect(tmp_path / DATABASE) as db:
        db.execute("PRAGMA user_version = 99")
    try:
        State(tmp_path)
    except Exception as error:  # noqa: BLE001
        assert "newer grader" in str(error)
    else:
        raise AssertionError("a newer schema must be refused")


def test_identical_hand_ins_are_graded_once(served: Served) -> None:
    alice, bob = served.token("alice"), served.token("bob")
    served.start("--workers", "1")
    first = served.wait(alice, served.submit(alice, "add", ADD).body["id"])
    second = served.wait(bob, served.submit(bob, "add", ADD).body["id"])
    assert second["report"]["submission"] == "bob/add.py"
    assert [t["verdict"] for t in second["report"]["tests"]] == [t["verdict"] for t in first["report"]["tests"]]
    with sqlite3.connect(served.state / DATABASE) as db:
        attempts = dict(db.execute("SELECT id, attempts FROM submissions"))
    assert attempts == {first["id"]: 1, second["id"]: 0}  # the second never went to a worker
    as_zip = served.submit(bob, "add", ADD, name="add.zip")  # the same bytes in another form: its own
    assert served.wait(bob, as_zip.body["id"])["report"]["verdict"] != "passed"
