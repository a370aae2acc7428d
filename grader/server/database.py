"""The two databases the server's state can live in, behind one small interface: SQLite (state.sqlite, by
default) and PostgreSQL (`--database`, for several servers), both spoken in SQLite's dialect. Each says how
a transaction begins and ends, durably (on disk when the commit returns) or not (on disk soon after: what
a crash of the server keeps and only a power cut may lose), and reads and writes the schema's version."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from grader.errors import UsageError


class SQLite(sqlite3.Connection):
    """One connection to state.sqlite, in WAL mode: a reader never waits for a writer."""

    def begin(self, durable: bool) -> None:
        if not durable:  # in WAL mode: the commit is written, fsynced with the next durable one
            self.execute("PRAGMA synchronous=NORMAL")
        self.execute("BEGIN IMMEDIATE")

    def end(self, durable: bool, commit: bool) -> None:
        try:
            self.execute("COMMIT" if commit else "ROLLBACK")
        finally:
            if not durable:
                self.execute("PRAGMA synchronous=FULL")

    def version(self) -> int:
        return int(self.execute("PRAGMA user_version").fetchone()[0])

    def set_version(self, version: int) -> None:
        self.execute(f"PRAGMA user_version = {int(version)}")


def sqlite(path: Path, reader: bool = False) -> SQLite:
    """`reader`: a connection that only reads (the state keeps one for reads, one for writes)."""
    try:
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, factory=SQLite)
        db.execute("PRAGMA journal_mode=WAL")
    except sqlite3.Error as error:
        raise UsageError(f"cannot open the server's database {path}: {error}") from None
    db.execute("PRAGMA synchronous=FULL")  # a commit is on disk when it returns
    db.execute("PRAGMA busy_timeout=10000")
    if reader:
        db.execute("PRAGMA query_only=ON")
    return db


class Postgres:
    """A PostgreSQL connection that takes the SQLite dialect the state is written in: ? placeholders,
    SQLite's column types. Several servers may share it: migrations and claims are transactions."""

    _TYPES = (("INTEGER PRIMARY KEY AUTOINCREMENT", "BIGSERIAL PRIMARY KEY"), (" BLOB", " BYTEA"),
              (" REAL", " DOUBLE PRECISION"))

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            from grader.install_hint import install_hint

            raise UsageError(f"--database needs psycopg: {install_hint('postgres')}") from None
        try:
            self.connection = psycopg.connect(url, autocommit=True)
        except psycopg.Error as error:
            raise UsageError(f"cannot connect to the database {url.split('@')[-1]}: {error}") from None

    def begin(self, durable: bool) -> None:
        self.execute("BEGIN")
        if not durable:  # the commit returns before the server's WAL is flushed
            self.execute("SET LOCAL synchronous_commit TO OFF")

    def end(self, durable: bool, commit: bool) -> None:
        self.execute("COMMIT" if commit else "ROLLBACK")

    def execute(self, sql: str, values: tuple[object, ...] = ()) -> Any:
        return self.connection.execute(self._translated(sql), values)

    def executemany(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        with self.connection.cursor() as cursor:
            cursor.executemany(self._translated(sql), rows)

    def _translated(self, sql: str) -> str:
        for sqlite, postgres in self._TYPES:
            sql = sql.replace(sqlite, postgres)
        return sql.replace("%", "%%").replace("?", "%s")

    def version(self) -> int:
        self.execute("SELECT pg_advisory_xact_lock(2029)")  # one server migrates at a time
        self.execute("CREATE TABLE IF NOT EXISTS grader_schema (version INTEGER NOT NULL)")
        row = self.execute("SELECT version FROM grader_schema").fetchone()
        return int(row[0]) if row else 0

    def set_version(self, version: int) -> None:
        self.execute("DELETE FROM grader_schema")
        self.execute("INSERT INTO grader_schema VALUES (?)", (version,))

    def close(self) -> None:
        self.connection.close()
