"""Servers sharing a PostgreSQL database tell each other of the submissions they start and finish
(grader/server/peers.py): what one tells, the others hear, and nobody hears its own."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from grader.server.database import Postgres, sqlite
from grader.server.peers import PeerChanges
from tests.server.test_postgres import database  # noqa: F401 - a fixture


def test_what_one_server_tells_the_others_hear_and_it_does_not(database: str) -> None:  # noqa: F811
    heard: dict[str, list[int]] = {"one": [], "two": []}
    one, two = (PeerChanges.of(Postgres(database), heard[name].append) for name in ("one", "two"))
    assert one is not None and two is not None

    def until(done: Callable[[], bool], tell: Callable[[], None]) -> None:
        """Tell again until it is heard: each listens only once its thread has run LISTEN."""
        deadline = time.monotonic() + 120
        while not done():
            assert time.monotonic() < deadline, heard
            tell()
            time.sleep(0.1)

    for peer in (one, two):
        peer.start()
    try:
        until(lambda: 7 in heard["two"], lambda: one.tell(7))
        until(lambda: 8 in heard["one"], lambda: two.tell(8))  # both listen now
        one.tell(9)  # its own: not heard by it; what two tells after it reaches one after it
        until(lambda: 10 in heard["one"], lambda: two.tell(10))
        assert set(heard["one"]) == {8, 10} and set(heard["two"]) <= {7, 9}
    finally:
        one.stop()
        two.stop()


def test_a_single_servers_sqlite_has_nobody_to_tell(tmp_path: Path) -> None:
    assert PeerChanges.of(sqlite(tmp_path / "state.sqlite"), lambda number: None) is None
