"""The server's state: a database (tokens, submissions, reports, overrides), state.sqlite under `--state DIR`
or the PostgreSQL database `--database` names (several servers share it and the folder), and uploads/ID/ in
the folder (each hand-in as it was received). A submission is on disk, fsynced, before its row is committed,
and its row is committed (synchronous=FULL in SQLite) before the client hears 202: a server killed at any
moment loses nothing it acknowledged. The SQL is SQLite's; `_Postgres` translates the little that differs."""

from __future__ import annotations

import os
import pickle
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.model import Report
from grader.records import record

DATABASE = "state.sqlite"
UPLOADS = "uploads"
STATUSES = ("queued", "running", "done", "error")

# Applied in order from the database's PRAGMA user_version up, in the transaction that opens it: an old
# state folder is upgraded in place on start. Only ever append.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: tokens, submissions, overrides
        """CREATE TABLE tokens (
            digest TEXT PRIMARY KEY,        -- sha256 of the token: the token itself is never stored
            student TEXT NOT NULL, staff INTEGER NOT NULL, created_at REAL NOT NULL)""",
        """CREATE TABLE submissions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            student TEXT NOT NULL, exercise TEXT NOT NULL,
            file TEXT NOT NULL,             -- relative to the state folder, chosen by the server
            sent_name TEXT NOT NULL,        -- the name the client gave: shown (escaped), never a path
            sha256 TEXT NOT NULL, submitted_at REAL NOT NULL,
            status TEXT NOT NULL,           -- queued, running, done, error
            attempts INTEGER NOT NULL DEFAULT 0,  -- how many times a worker was handed it
            claimed_by TEXT,                -- the server grading it (several may share a database)
            exercise_digest TEXT,           -- what the exercise was when it was graded (regrades compare it)
            report BLOB,                    -- the pickled Report, with staff details; None until graded
            error TEXT, graded_at REAL)""",
        "CREATE INDEX submissions_of ON submissions (student, exercise)",
        "CREATE INDEX submissions_by_status ON submissions (status)",
        """CREATE TABLE overrides (         -- a TA's score for a student's exercise: survives regrades
            student TEXT NOT NULL, exercise TEXT NOT NULL, score REAL NOT NULL, reason TEXT NOT NULL,
            staff_member TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (student, exercise))""",
    ),
    (  # 2: identical hand-ins are graded once, as in a batch: found by their content
        "CREATE INDEX submissions_by_content ON submissions (sha256, exercise)",
    ),
)


@record
class Submission:
    id: int
    student: str
    exercise: str
    file: str
    sent_name: str
    sha256: str
    submitted_at: float
    status: str
    attempts: int
    exercise_digest: str | None
    report: Report | None
    error: str | None
    graded_at: float | None


@record
class Override:
    student: str
    exercise: str
    score: float
    reason: str
    by: str
    at: float


_COLUMNS = ("id, student, exercise, file, sent_name, sha256, submitted_at, status, attempts, exercise_digest, "
            "report, error, graded_at")


class State:
    """One connection, shared by the server's threads under a lock: SQLite writes one at a time anyway."""

    def __init__(self, folder: Path, database: str | None = None, name: str | None = None) -> None:
        """`name`: who claims the rows this server grades, the same after a restart (servers sharing a
        database have names of their own)."""
        self.folder = folder
        self.name = name or f"{socket.gethostname()}:{folder.resolve()}"
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            (folder / UPLOADS).mkdir(exist_ok=True, mode=0o700)
        except OSError as error:
            raise UsageError(f"cannot open the server's state in {folder}: {error}") from None
        self.lock = threading.RLock()
        self.db: Any = _Postgres(database) if database else _sqlite(folder / DATABASE)
        with self.transaction():
            migrate(self.db)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            self.db.execute(self.db.begin)
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def close(self) -> None:
        with self.lock:
            self.db.close()

    # ------------------------------------------------------------ tokens
    def add_token(self, digest: str, student: str, staff: bool) -> None:
        with self.transaction() as db:
            db.execute("INSERT INTO tokens VALUES (?, ?, ?, ?)", (digest, student, int(staff), time.time()))

    def token(self, digest: str) -> tuple[str, str, bool] | None:
        """(stored digest, student, staff) of the token with this digest."""
        with self.lock:
            row = self.db.execute("SELECT digest, student, staff FROM tokens WHERE digest = ?", (digest,)).fetchone()
        return (row[0], row[1], bool(row[2])) if row else None

    def students(self) -> list[str]:
        with self.lock:
            rows = self.db.execute("SELECT DISTINCT student FROM tokens WHERE staff = 0 UNION "
                                   "SELECT DISTINCT student FROM submissions ORDER BY 1").fetchall()
        return [row[0] for row in rows]

    # ------------------------------------------------------------ submissions
    def store(self, student: str, exercise: str, sent_name: str, suffix: str, data: bytes, sha256: str) -> int:
        """Write the hand-in, fsynced, then its row: the id. The file's name is the server's own."""
        with self.transaction() as db:
            number = int(db.execute(
                "INSERT INTO submissions (student, exercise, file, sent_name, sha256, submitted_at, status) "
                "VALUES (?, ?, '', ?, ?, ?, 'queued') RETURNING id",
                (student, exercise, sent_name, sha256, time.time())).fetchone()[0])
            relative = Path(UPLOADS) / str(number) / f"{exercise}{suffix}"
            _write_durably(self.folder / relative, data)
            db.execute("UPDATE submissions SET file = ? WHERE id = ?", (str(relative), number))
        return number

    def get(self, number: int) -> Submission | None:
        found = self._select("WHERE id = ?", (number,))
        return found[0] if found else None

    def list(self, student: str | None = None, exercise: str | None = None, status: str | None = None,
             since: float | None = None) -> list[Submission]:
        clauses, values = [], []
        for column, value in (("student", student), ("exercise", exercise), ("status", status)):
            if value is not None:
                clauses.append(f"{column} = ?")
                values.append(value)
        if since is not None:
            clauses.append("submitted_at >= ?")
            values.append(since)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        return self._select(f"{where} ORDER BY id", tuple(values))

    def _select(self, tail: str, values: tuple[object, ...]) -> list[Submission]:
        with self.lock:
            rows = self.db.execute(f"SELECT {_COLUMNS} FROM submissions {tail}", values).fetchall()
        return [Submission(*row[:10], pickle.loads(row[10]) if row[10] else None, *row[11:]) for row in rows]

    def counts(self) -> dict[str, int]:
        with self.lock:
            rows = self.db.execute("SELECT status, COUNT(*) FROM submissions GROUP BY status").fetchall()
        return {status: 0 for status in STATUSES} | dict(rows)

    def path_of(self, submission: Submission) -> Path:
        return self.folder / submission.file

    # ------------------------------------------------------------ the queue
    def recover(self, retries: int) -> list[int]:
        """After a restart: a submission left `running` was being graded when the server died; it goes back
        to the queue while it has tries left, else it is an error. The ids put back."""
        with self.transaction() as db:
            running = db.execute("SELECT id, attempts FROM submissions WHERE status = 'running' AND "
                                 "(claimed_by = ? OR claimed_by IS NULL)", (self.name,)).fetchall()
            back = [number for number, attempts in running if attempts <= retries]
            db.executemany("UPDATE submissions SET status = 'queued' WHERE id = ?", [(n,) for n in back])
            db.executemany("UPDATE submissions SET status = 'error', error = ? WHERE id = ?",
                           [("the server stopped while grading it, twice", n)
                            for n, attempts in running if attempts > retries])
        return back

    def queued(self) -> list[int]:
        with self.lock:
            return [row[0] for row in self.db.execute("SELECT id FROM submissions WHERE status = 'queued' ORDER BY id")]

    def twin(self, submission: Submission, exercise_digest: str) -> Report | None:
        """The report of another hand-in with the same bytes and form, graded under this version of the
        exercise: an identical submission needs no grading of its own."""
        with self.lock:
            rows = self.db.execute("SELECT file, report FROM submissions WHERE sha256 = ? AND exercise = ? AND "
                                   "exercise_digest = ? AND status = 'done' AND id != ? ORDER BY id DESC LIMIT 8",
                                   (submission.sha256, submission.exercise, exercise_digest, submission.id)).fetchall()
        suffix = Path(submission.file).suffix
        found = next((report for file, report in rows if Path(file).suffix == suffix), None)
        return pickle.loads(found) if found else None

    def start(self, number: int) -> bool:
        """Claim a queued submission for this server's workers; False when another server took it first."""
        with self.transaction() as db:
            return db.execute("UPDATE submissions SET status = 'running', attempts = attempts + 1, claimed_by = ? "
                              "WHERE id = ? AND status = 'queued'", (self.name, number)).rowcount == 1

    def requeue(self, number: int) -> None:
        with self.transaction() as db:
            db.execute("UPDATE submissions SET status = 'queued' WHERE id = ?", (number,))

    def finish(self, number: int, report: Report, exercise_digest: str, error: str | None = None) -> None:
        with self.transaction() as db:
            db.execute("UPDATE submissions SET status = ?, report = ?, exercise_digest = ?, error = ?, graded_at = ? "
                       "WHERE id = ?", ("error" if error else "done", pickle.dumps(report), exercise_digest, error,
                                        time.time(), number))

    def regrade(self, numbers: list[int]) -> None:
        """Back to the queue, with a fresh count of tries; the old report stays until the new one replaces it."""
        with self.transaction() as db:
            db.executemany("UPDATE submissions SET status = 'queued', attempts = 0, error = NULL WHERE id = ?",
                           [(n,) for n in numbers])

    # ------------------------------------------------------------ overrides
    def set_override(self, override: Override) -> None:
        with self.transaction() as db:
            db.execute("INSERT INTO overrides VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (student, exercise) DO UPDATE "
                       "SET score = excluded.score, reason = excluded.reason, staff_member = excluded.staff_member, "
                       "at = excluded.at",
                       (override.student, override.exercise, override.score, override.reason, override.by,
                        override.at))

    def overrides(self) -> dict[tuple[str, str], Override]:
        with self.lock:
            rows = self.db.execute("SELECT student, exercise, score, reason, staff_member, at FROM overrides").fetchall()
        return {(row[0], row[1]): Override(*row) for row in rows}


def migrate(db: Any) -> None:
    """Bring the database up to the last migration, inside the caller's transaction."""
    current = db.version()
    if current > len(MIGRATIONS):
        raise UsageError(f"the server's state was written by a newer grader (schema {current}); upgrade grader")
    for version in range(current, len(MIGRATIONS)):
        for statement in MIGRATIONS[version]:
            db.execute(statement)
    db.set_version(len(MIGRATIONS))


class _SQLite(sqlite3.Connection):
    begin = "BEGIN IMMEDIATE"

    def version(self) -> int:
        return int(self.execute("PRAGMA user_version").fetchone()[0])

    def set_version(self, version: int) -> None:
        self.execute(f"PRAGMA user_version = {int(version)}")


def _sqlite(path: Path) -> _SQLite:
    try:
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, factory=_SQLite)
        db.execute("PRAGMA journal_mode=WAL")
    except sqlite3.Error as error:
        raise UsageError(f"cannot open the server's database {path}: {error}") from None
    db.execute("PRAGMA synchronous=FULL")  # a commit is on disk when it returns
    db.execute("PRAGMA busy_timeout=10000")
    return db


class _Postgres:
    """A PostgreSQL connection that takes the SQLite dialect the state is written in: ? placeholders,
    SQLite's column types. Several servers may share it: migrations and claims are transactions."""

    begin = "BEGIN"
    _TYPES = (("INTEGER PRIMARY KEY AUTOINCREMENT", "BIGSERIAL PRIMARY KEY"), (" BLOB", " BYTEA"),
              (" REAL", " DOUBLE PRECISION"))

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise UsageError("--database needs psycopg: pip install 'yaml-grader[postgres]'") from None
        try:
            self.connection = psycopg.connect(url, autocommit=True)
        except psycopg.Error as error:
            raise UsageError(f"cannot connect to the database {url.split('@')[-1]}: {error}") from None

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


def _write_durably(path: Path, data: bytes) -> None:
    """The file and the folder entries that name it, on disk when this returns."""
    path.parent.mkdir(mode=0o700)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view):]
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    for folder in (path.parent, path.parent.parent):
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
