"""Servers sharing a PostgreSQL database tell each other of the submissions they start and finish
(LISTEN/NOTIFY), so that a long poll (GET ...?wait=S) on one server hears at once of a report another
stored, not at its next read of the row (each second). Best effort: a notification lost (the database
restarting) costs that second, nothing else."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

CHANNEL = "grader_submissions"


class PeerChanges:
    def __init__(self, dsn: str, heard: Callable[[int], None]) -> None:
        """`dsn`: the database's, as psycopg gives it (the password, if any, from $PGPASSWORD);
        `heard`: called with each submission another server changed, on this object's thread."""
        self.dsn, self.heard = dsn, heard
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._sender: Any = None
        self.thread = threading.Thread(target=self._listen, name="peer-changes", daemon=True)

    @classmethod
    def of(cls, db: object, heard: Callable[[int], None]) -> PeerChanges | None:
        """For a state's PostgreSQL database; None for SQLite (one server: nobody to tell)."""
        from grader.server.database import Postgres

        if not isinstance(db, Postgres):
            return None
        dsn = getattr(getattr(getattr(db, "connection", None), "info", None), "dsn", None)
        return cls(dsn, heard) if isinstance(dsn, str) else None  # (no psycopg connection: nobody told)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            if self._sender is not None:
                self._sender.close()
                self._sender = None

    def tell(self, number: int) -> None:
        import psycopg

        with self._lock:
            if self._stop.is_set():
                return
            try:
                if self._sender is None:
                    self._sender = psycopg.connect(self.dsn, autocommit=True, connect_timeout=5)
                self._sender.execute("SELECT pg_notify(%s, %s)", (CHANNEL, str(number)))
            except psycopg.Error:
                self._sender = None  # connected again at the next change

    def _own(self) -> int | None:
        with self._lock:
            return self._sender.info.backend_pid if self._sender is not None else None

    def _listen(self) -> None:
        import psycopg

        while not self._stop.is_set():
            try:
                with psycopg.connect(self.dsn, autocommit=True, connect_timeout=5) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    while not self._stop.is_set():
                        for notice in connection.notifies(timeout=1.0):
                            if notice.payload.isdigit() and notice.pid != self._own():
                                self.heard(int(notice.payload))
            except psycopg.Error:
                self._stop.wait(1.0)
