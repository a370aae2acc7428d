"""The server's state: an older database is migrated on start, keeping its rows; identical hand-ins are
graded once, as in a batch; a hand-in is written before its row, and nothing is left of one never stored."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from pathlib import Path

from grader.model import Report
from grader.server.state import DATABASE, INCOMING, MIGRATIONS, UPLOADS, State
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


def test_a_hand_in_is_received_then_stored_under_its_id_and_nothing_is_left_of_one_never_stored(
        tmp_path: Path) -> None:
    state = State(tmp_path)
    data = ADD.encode()
    incoming = state.receive(data, "add.py")
    assert incoming.parent == tmp_path / UPLOADS and incoming.name.startswith(INCOMING)
    assert (incoming / "add.py").read_bytes() == data
    refused = state.receive(data, "add.py")
    state.discard(refused)  # refused after all (the rate limit, counted again under the lock)
    # A crash between a rename and its commit leaves a folder named after an id never committed: the next
    # row takes that id, and the folder is replaced.
    (tmp_path / UPLOADS / "1").mkdir()
    (tmp_path / UPLOADS / "1" / "stale.py").write_text("left over")
    number = state.store("alice", "add", "../add.py", ".py", incoming, hashlib.sha256(data).hexdigest())
    assert number == 1
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / UPLOADS).rglob("*")) == [
        Path(UPLOADS) / "1", Path(UPLOADS) / "1" / "add.py"]
    submission = state.get(number)
    assert submission is not None and state.path_of(submission).read_bytes() == data
    assert submission.grading_seconds is None
    # A report is read back at once through the readers' own connection, with how long its grading took.
    assert state.start(number)
    state.finish(number, Report("add", "alice/add.py", ()), "digest", seconds=0.25)
    graded = state.get(number)
    assert graded is not None and (graded.status, graded.grading_seconds) == ("done", 0.25)
    # A hand-in received by a server that died before storing it is removed on a restart, once it is old
    # (a newer one may be another server's, sharing the folder, about to store it).
    old, new = state.receive(data, "add.py"), state.receive(data, "add.py")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    state.recover(retries=1)
    assert not old.exists() and new.exists()
    state.close()
