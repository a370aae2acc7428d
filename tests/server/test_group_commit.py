"""Uploads stored by group commit: the ones that wait while a group is being stored share its transaction
and its fsync of uploads/, each caller gets its own submission, one bad upload costs the others nothing; and
a server killed with SIGKILL in a storm of uploads has kept every one it acknowledged, on SQLite and on
PostgreSQL."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
import urllib.error
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.server import group_commit
from grader.server.group_commit import UPLOADS, NotAdmitted
from grader.server.state import State
from grader.server.tokens import issue
from tests.server.conftest import Served
from tests.server.test_postgres import database  # noqa: F401 - the throwaway PostgreSQL cluster

STORED = "STORED"


def code(student: str, n: int) -> bytes:
    return f"# {student} {n}\ndef add(a, b):\n    return a + b\n".encode()


class Storm:
    """Uploads stored at once by threads, the first group held in flight until all the others wait."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.results: dict[str, Any] = {}
        self._release = threading.Event()

    def hold(self) -> None | object:
        self._release.wait(timeout=60)
        return None

    def release(self) -> None:
        self._release.set()

    def store(self, label: str, student: str, admit: Callable[[], object | None] = lambda: None,
              incoming: Path | None = None) -> None:
        data = code(student, len(self.results))
        try:
            self.results[label] = self.state.store(student, "add", "add.py", ".py", incoming or data,
                                                   hashlib.sha256(data).hexdigest(), admit=admit)
        except Exception as failure:  # noqa: BLE001 - what its caller hears, kept for the test to read
            self.results[label] = failure

    def run(self, first: Callable[[], None], others: list[Callable[[], None]], before: Callable[[], None] =
            lambda: None) -> None:
        threads = [threading.Thread(target=first)]
        threads[0].start()
        deadline = time.monotonic() + 60
        while self.state.uploads.groups == 0:  # the first group is in flight, held in its admission
            assert time.monotonic() < deadline
            time.sleep(0.005)
        threads += [threading.Thread(target=call) for call in others]
        for thread in threads[1:]:
            thread.start()
        while self.state.uploads.waiting < len(others):
            assert time.monotonic() < deadline
            time.sleep(0.005)
        before()
        self.release()
        for thread in threads:
            thread.join(timeout=60)


def counted(monkeypatch: pytest.MonkeyPatch, state: State) -> dict[str, int]:
    """How many transactions the state began and how many times uploads/ itself was fsynced."""
    counts = {"transactions": 0, "fsyncs of uploads/": 0}
    transaction, fsync = state.transaction, group_commit.fsync_folder

    def counting_transaction(*args: Any, **kwargs: Any) -> Any:
        counts["transactions"] += 1
        return transaction(*args, **kwargs)

    def counting_fsync(folder: Path) -> None:
        counts["fsyncs of uploads/"] += folder == state.folder / UPLOADS
        fsync(folder)

    monkeypatch.setattr(state, "transaction", counting_transaction)
    monkeypatch.setattr(group_commit, "fsync_folder", counting_fsync)
    return counts


def stored_rows(state: State) -> dict[int, tuple[str, str]]:
    return stored_rows_of(state.folder)


def stored_rows_of(folder: Path) -> dict[int, tuple[str, str]]:
    with sqlite3.connect(folder / "state.sqlite") as db:
        return {n: (file, sha) for n, file, sha in db.execute("SELECT id, file, sha256 FROM submissions")}


def assert_kept(state: State, number: int) -> None:
    file, sha256 = stored_rows(state)[number]
    assert hashlib.sha256((state.folder / file).read_bytes()).hexdigest() == sha256


def test_uploads_waiting_for_a_store_share_one_transaction_and_each_gets_its_own_number(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = State(tmp_path)
    counts = counted(monkeypatch, state)
    storm = Storm(state)
    students = [f"s{n}" for n in range(7)]
    storm.run(lambda: storm.store("first", "first", admit=storm.hold),
              [lambda s=s: storm.store(s, s) for s in students])  # type: ignore[misc]
    numbers = [storm.results[label] for label in ("first", *students)]
    assert all(isinstance(n, int) for n in numbers) and len(set(numbers)) == 8, storm.results
    assert state.uploads.groups == 2, "the first alone, then the seven that waited for it, together"
    assert counts == {"transactions": 2, "fsyncs of uploads/": 2}
    for number in numbers:
        assert_kept(state, number)
    assert not list((tmp_path / UPLOADS).glob(".incoming-*"))


def test_without_the_group_commit_each_upload_has_a_transaction_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(group_commit.GROUPED, "off")  # what benchmarks/uploads.py measures against
    state = State(tmp_path)
    counts = counted(monkeypatch, state)
    storm = Storm(state)
    storm.run(lambda: storm.store("first", "first", admit=storm.hold),
              [lambda s=s: storm.store(s, s) for s in ("a", "b", "c")])  # type: ignore[misc]
    assert sorted(storm.results.values()) == [1, 2, 3, 4]
    assert state.uploads.groups == 4 and counts == {"transactions": 4, "fsyncs of uploads/": 4}


def test_one_bad_upload_in_a_group_costs_the_others_nothing(tmp_path: Path) -> None:
    """A refusal by the rules in its turn, rules that could not answer, and a hand-in whose folder vanished:
    each caller hears its own reason, nothing of theirs is left behind, and the rest of the group is stored."""
    state = State(tmp_path)
    storm = Storm(state)
    vanished = state.receive(code("gone", 0), "add.py")
    refusal = object()

    def unanswered() -> None:
        raise sqlite3.OperationalError("database is locked")

    storm.run(lambda: storm.store("first", "first", admit=storm.hold),
              [lambda: storm.store("good", "good"), lambda: storm.store("refused", "refused", admit=lambda: refusal),
               lambda: storm.store("unanswered", "unanswered", admit=unanswered),
               lambda: storm.store("gone", "gone", incoming=vanished), lambda: storm.store("also good", "also")],
              before=lambda: state.discard(vanished))
    assert isinstance(storm.results["refused"], NotAdmitted) and storm.results["refused"].refusal is refusal
    assert isinstance(storm.results["unanswered"], sqlite3.OperationalError)
    assert isinstance(storm.results["gone"], FileNotFoundError)
    kept = [storm.results[label] for label in ("first", "good", "also good")]
    assert sorted(stored_rows(state)) == sorted(kept)  # no row for the refused one nor the vanished one
    for number in kept:
        assert_kept(state, number)
    assert state.uploads.groups == 2
    assert not list((tmp_path / UPLOADS).glob(".incoming-*")), "the refused hand-in is discarded"


def test_a_caller_holding_the_writers_lock_stores_alone_and_never_waits_for_a_group(tmp_path: Path) -> None:
    """A store made by a caller that holds the writer's lock (as a read on the writer's connection does)
    while another group waits for that lock: it cannot wait for that group, which waits for it."""
    state = State(tmp_path)
    storm = Storm(state)
    inside: list[int] = []
    holding = threading.Event()

    def holding_the_lock() -> None:
        with state.lock:
            holding.set()
            storm.hold()
            inside.append(state.store("inside", "add", "add.py", ".py", code("inside", 0), "0" * 64))

    holder = threading.Thread(target=holding_the_lock)
    holder.start()
    assert holding.wait(timeout=30)
    waiter = threading.Thread(target=storm.store, args=("outside", "outside"))
    waiter.start()
    deadline = time.monotonic() + 30
    while state.uploads.groups == 0:  # it leads a group, which waits for the lock the holder has
        assert time.monotonic() < deadline
        time.sleep(0.005)
    storm.release()
    holder.join(timeout=30)
    waiter.join(timeout=30)
    assert not holder.is_alive() and not waiter.is_alive(), "a deadlock"
    assert sorted([*inside, storm.results["outside"]]) == [1, 2]


def test_two_uploads_of_one_students_exercise_are_never_in_one_group(tmp_path: Path) -> None:
    """So that the rate rule, asked in each one's turn, counts the other committed."""
    state = State(tmp_path)
    storm = Storm(state)
    seen: list[int] = []
    storm.run(lambda: storm.store("first", "first", admit=storm.hold),
              [lambda: storm.store("alice 1", "alice", admit=lambda: seen.append(len(stored_rows(state)))),
               lambda: storm.store("alice 2", "alice", admit=lambda: seen.append(len(stored_rows(state)))),
               lambda: storm.store("bob", "bob")])
    assert state.uploads.groups == 3 and sorted(seen) == [1, 3], "alice's second counts her first, committed"
    assert sorted(storm.results.values()) == [1, 2, 3, 4]


def test_a_burst_of_uploads_past_the_rate_is_refused_past_the_rate_exactly(served: Served) -> None:
    """Forged concurrency: a student firing many uploads at once gets no more in than the rate allows,
    however the group commit groups them; the rest are a 429 with Retry-After, never a 5xx."""
    (served.root / "grader-course.yaml").write_text("rules:\n  rate: {submissions: 3, per: 1h}\n")
    state = State(served.state)
    tokens = {name: issue(state, name) for name in ("alice", "bob")}
    state.close()
    served.start("--workers", "1")
    answers: list[tuple[str, int, str | None]] = []

    def send(name: str, n: int) -> None:
        answer = served.submit(tokens[name], "add", code(name, n))
        answers.append((name, answer.status, answer.headers.get("retry-after")))

    threads = [threading.Thread(target=send, args=(name, n)) for n in range(8) for name in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    for name in tokens:
        statuses = sorted(status for who, status, _ in answers if who == name)
        assert statuses == [202] * 3 + [429] * 5, (name, statuses)
    assert all(int(after) >= 1 for _, status, after in answers if status == 429)  # type: ignore[arg-type]


def test_an_upload_the_disk_cannot_take_is_a_503_that_says_so_and_the_next_is_stored(served: Served) -> None:
    """A file where the first submission's folder must go (a disk in a state the server did not make): that
    upload is refused with the reason and Retry-After, its row is not kept, and the server goes on."""
    state = State(served.state)
    alice = issue(state, "alice")
    state.close()
    (served.state / UPLOADS / "1").write_text("not a folder")
    served.start("--workers", "1")
    refused = served.submit(alice, "add", code("alice", 0))
    assert refused.status == 503 and refused.headers.get("retry-after") == "5", refused
    assert refused.body["error"].startswith("the server could not store this upload (NotADirectoryError)")
    stored = served.submit(alice, "add", code("alice", 1))
    assert stored.status == 202, stored.body
    assert sorted(stored_rows_of(served.state)) == [stored.body["id"]]
    assert not list((served.state / UPLOADS).glob(".incoming-*")), "nothing of the refused one is left"


# ---------------------------------------------------------------- kill -9 in a storm of uploads
def storm_then_kill(servers: list[Served], tokens: list[str], acknowledged_at_kill: int) -> dict[int, str]:
    """Every student's thread sends distinct hand-ins back to back, to the servers in turn; once
    `acknowledged_at_kill` have their 202, the first server gets SIGKILL, and the storm stops. The
    acknowledged ones: {id: sha256 sent}."""
    acknowledged: dict[int, str] = {}
    others: list[int] = []
    stop = threading.Event()

    def student(n: int, token: str) -> None:
        served = servers[n % len(servers)]
        for tag in range(10_000):
            if stop.is_set():
                return
            data = code(f"student{n}", tag)
            try:
                answer = served.submit(token, "add", data)
            except (urllib.error.URLError, ConnectionError, OSError):
                return  # its server is gone: this one was never acknowledged
            if answer.status == 202:
                acknowledged[answer.body["id"]] = hashlib.sha256(data).hexdigest()
            else:
                others.append(answer.status)

    threads = [threading.Thread(target=student, args=item) for item in enumerate(tokens)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 120
    while len(acknowledged) < acknowledged_at_kill:
        assert time.monotonic() < deadline, f"only {len(acknowledged)} uploads acknowledged: {others}"
        time.sleep(0.01)
    servers[0].kill()
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    assert others == [], "every upload answered before the kill was acknowledged"
    return dict(acknowledged)


def test_a_server_killed_in_a_storm_of_uploads_keeps_every_acknowledged_one(served: Served) -> None:
    state = State(served.state)
    tokens = [issue(state, f"student{n}") for n in range(8)]
    state.close()
    served.start("--workers", "1", "--max-per-address", "0")
    acknowledged = storm_then_kill([served], tokens, acknowledged_at_kill=40)
    served.start("--workers", "1")  # the restart: it recovers what it left
    assert_kept_on_disk(served, acknowledged, None)


def test_two_servers_on_postgres_one_killed_in_a_storm_keep_every_acknowledged_upload(
        served: Served, database: str) -> None:  # noqa: F811 - the fixture imported above
    state = State(served.state, database)
    tokens = [issue(state, f"student{n}") for n in range(8)]
    state.close()
    shared = ("--workers", "1", "--database", database)
    served.start(*shared, "--name", "one", "--max-per-address", "0")
    other = Served(served.root, served.state, served.exercises)
    other.start(*shared, "--name", "two", "--max-per-address", "0")
    try:
        acknowledged = storm_then_kill([served, other], tokens, acknowledged_at_kill=40)
        served.start(*shared, "--name", "one")
        assert_kept_on_disk(served, acknowledged, database)
    finally:
        other.stop()


def assert_kept_on_disk(served: Served, acknowledged: dict[int, str], url: str | None) -> None:
    """Every acknowledged upload has its row, its file under the state folder and the sha256 it was sent with."""
    state = State(served.state, url)
    try:
        rows = {s.id: (s.file, s.sha256) for s in state.list()}
    finally:
        state.close()
    for number, sha256 in acknowledged.items():
        assert number in rows, f"submission {number} was acknowledged, then lost"
        file, stored = rows[number]
        assert stored == sha256 and hashlib.sha256((served.state / file).read_bytes()).hexdigest() == sha256
