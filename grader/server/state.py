"""The server's state: a database (tokens, submissions, reports, overrides), state.sqlite under `--state DIR`
or the PostgreSQL database `--database` names (several servers share it and the folder), and uploads/ID/ in
the folder (each hand-in as it was received). A submission is on disk, fsynced, before its row is committed,
and its row is committed (synchronous=FULL in SQLite) before the client hears 202, together with the uploads
waiting beside it (grader/server/group_commit.py): a server killed at any moment loses nothing it
acknowledged. A claim by a worker and a report are committed without waiting for the disk (a power cut may
undo them; the submission is then graded again). The SQL is SQLite's; grader/server/database.py translates
the little that differs."""

from __future__ import annotations

import json
import pickle
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.model import Report
from grader.server import group_commit
from grader.server.database import Postgres, sqlite
from grader.server.group_commit import INCOMING, UPLOADS, GroupCommit, Upload
from grader.server.rows import Change, Message, Override, RegradeRequest, Review, Submission
from grader.server.schema import MIGRATIONS, migrate

DATABASE = "state.sqlite"
STATUSES = ("queued", "running", "done", "error")
__all__ = ["INCOMING", "MIGRATIONS", "STATUSES", "UPLOADS", "Change", "Message", "Override", "RegradeRequest",
           "Review", "State", "Submission", "migrate"]

_COLUMNS = ("s.id, s.student, s.exercise, s.file, s.sent_name, s.sha256, s.submitted_at, s.status, s.attempts, "
            "s.exercise_digest, s.report, s.error, s.graded_at, s.grading_seconds, r.points, a.score")
# The score of the latest staff answer that set one, per submission asked about: it travels with its submission.
_ANSWERED = ("SELECT q.submission, m.score FROM request_messages m JOIN regrade_requests q ON q.id = m.request "
             "WHERE m.id IN (SELECT MAX(n.id) FROM request_messages n JOIN regrade_requests p ON p.id = n.request "
             "WHERE n.staff = 1 AND n.score IS NOT NULL GROUP BY p.submission)")
_REVIEW = "submission, student, exercise, items, comments, summary, points, staff_member, at, released_at"
_REQUEST = "id, submission, student, exercise, about, status, at"


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
        self.lock = threading.RLock()  # the writer's: one transaction at a time
        self.db: Any = Postgres(database) if database else sqlite(folder / DATABASE)
        with self.transaction():
            migrate(self.db)
        # Reads have a connection and a lock of their own (in WAL mode a reader never waits for a writer):
        # a request, or the grading loop, reading a row never waits behind another's commit and its fsync.
        self._reader: Any = Postgres(database) if database else sqlite(folder / DATABASE, reader=True)
        self._read_lock = threading.Lock()
        self.uploads: GroupCommit[Upload, int] = GroupCommit(lambda group: group_commit.store_group(self, group),
                                                             key=Upload.group_key)

    @contextmanager
    def transaction(self, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """`durable=False`: a step of grading (a claim, a report stored) whose commit returns before it is
        on disk. A server killed at any moment keeps it (it is in the operating system's hands); a power cut
        may lose it, and the submission is then graded again after the restart: nothing is lost, and the
        grading loop does not wait for the disk twice per submission."""
        with self.lock:
            self.db.begin(durable)
            try:
                yield self.db
            except BaseException:
                self.db.end(durable, commit=False)
                raise
            self.db.end(durable, commit=True)

    def read(self, sql: str, values: tuple[object, ...] = ()) -> list[Any]:
        """Every row, fetched at once: a statement left unfinished would hold its snapshot of the database."""
        with self._read_lock:
            return list(self._reader.execute(sql, values).fetchall())

    def close(self) -> None:
        with self.lock, self._read_lock:
            self._reader.close()
            self.db.close()

    # ------------------------------------------------------------ tokens
    def add_token(self, digest: str, student: str, level: int) -> None:
        """`level`: the role's (roles.LEVELS): 0 a student, 1 an instructor, 2 a TA."""
        with self.transaction() as db:
            db.execute("INSERT INTO tokens VALUES (?, ?, ?, ?)", (digest, student, int(level), time.time()))

    def token(self, digest: str) -> tuple[str, str, int] | None:
        """(stored digest, student, role's level) of the token with this digest."""
        rows = self.read("SELECT digest, student, staff FROM tokens WHERE digest = ?", (digest,))
        return (rows[0][0], rows[0][1], int(rows[0][2])) if rows else None

    def students(self) -> list[str]:
        rows = self.read("SELECT DISTINCT student FROM tokens WHERE staff NOT IN (1, 2) UNION "  # roles.LEVELS
                          "SELECT DISTINCT student FROM submissions ORDER BY 1")
        return [row[0] for row in rows]

    # ------------------------------------------------------------ submissions
    def receive(self, data: bytes, name: str) -> Path:
        """The hand-in on disk, fsynced, in a folder of its own under uploads/ (group_commit.receive)."""
        return group_commit.receive(self.folder, data, name)

    def discard(self, incoming: Path) -> None:
        """A received hand-in that is not stored after all (refused, or its row failed)."""
        group_commit.discard(incoming)

    def store(self, student: str, exercise: str, sent_name: str, suffix: str, data: bytes | Path, sha256: str,
              admit: Callable[[], object | None] = lambda: None, key: Hashable = None) -> int:
        """The hand-in (its bytes, or the folder `receive` wrote them to) and its row, stored with the
        uploads waiting beside it (group_commit): the id, once committed. The file's name is the server's
        own. `admit`: the course's rules, asked in the upload's turn (a refusal raises NotAdmitted)."""
        incoming = data if isinstance(data, Path) else self.receive(data, f"{exercise}{suffix}")
        upload = Upload(student, exercise, sent_name, suffix, incoming, sha256, admit, key)
        if not self.lock._is_owned():  # type: ignore[attr-defined]  # what threading.Condition asks an RLock
            return self.uploads(upload)
        # The caller holds the writer's lock: a group led by another thread would wait for it, and this
        # caller for that group. Stored alone, in the caller's own turn.
        stored = group_commit.store_group(self, [upload])[0]
        if isinstance(stored, BaseException):
            raise stored
        return stored

    def get(self, number: int) -> Submission | None:
        found = self._select("WHERE s.id = ?", (number,))
        return found[0] if found else None

    def list(self, student: str | None = None, exercise: str | None = None, status: str | None = None,
             since: float | None = None) -> list[Submission]:
        clauses, values = [], []
        for column, value in (("student", student), ("exercise", exercise), ("status", status)):
            if value is not None:
                clauses.append(f"s.{column} = ?")
                values.append(value)
        if since is not None:
            clauses.append("s.submitted_at >= ?")
            values.append(since)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        return self._select(f"{where} ORDER BY s.id", tuple(values))

    def _select(self, tail: str, values: tuple[object, ...]) -> list[Submission]:
        # A released review's points travel with its submission: every score computed from it sees them.
        rows = self.read(f"SELECT {_COLUMNS} FROM submissions s LEFT JOIN reviews r ON r.submission = s.id AND "
                          f"r.released_at IS NOT NULL LEFT JOIN ({_ANSWERED}) a ON a.submission = s.id {tail}", values)
        return [Submission(*row[:10], pickle.loads(row[10]) if row[10] else None, *row[11:]) for row in rows]

    def counts(self) -> dict[str, int]:
        rows = self.read("SELECT status, COUNT(*) FROM submissions GROUP BY status")
        return {status: 0 for status in STATUSES} | dict(rows)

    def path_of(self, submission: Submission) -> Path:
        return self.folder / submission.file

    # ------------------------------------------------------------ the queue
    def recover(self, retries: int) -> list[int]:
        """After a restart: a submission left `running` was being graded when the server died; it goes back
        to the queue while it has tries left, else it is an error. The ids put back. A hand-in received
        but never stored (the server died between the two) is removed once it is an hour old: another
        server sharing the folder may be storing a newer one now."""
        for incoming in (self.folder / UPLOADS).glob(f"{INCOMING}*"):
            try:
                if incoming.stat().st_mtime < time.time() - 3600:
                    self.discard(incoming)
            except OSError:
                pass  # gone already
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
        return [row[0] for row in self.read("SELECT id FROM submissions WHERE status = 'queued' ORDER BY id")]

    def twin(self, submission: Submission, exercise_digest: str) -> Report | None:
        """The report of another hand-in with the same bytes and form, graded under this version of the
        exercise: an identical submission needs no grading of its own."""
        rows = self.read("SELECT file, report FROM submissions WHERE sha256 = ? AND exercise = ? AND "
                          "exercise_digest = ? AND status = 'done' AND id != ? ORDER BY id DESC LIMIT 8",
                          (submission.sha256, submission.exercise, exercise_digest, submission.id))
        suffix = Path(submission.file).suffix
        found = next((report for file, report in rows if Path(file).suffix == suffix), None)
        return pickle.loads(found) if found else None

    def start(self, number: int) -> bool:
        """Claim a queued submission for this server's workers; False when another server took it first."""
        with self.transaction(durable=False) as db:
            return db.execute("UPDATE submissions SET status = 'running', attempts = attempts + 1, claimed_by = ? "
                              "WHERE id = ? AND status = 'queued'", (self.name, number)).rowcount == 1

    def unclaim(self, number: int) -> None:
        """A claimed submission that no worker began (the server stopping): queued again, as it was."""
        with self.transaction() as db:
            db.execute("UPDATE submissions SET status = 'queued', attempts = attempts - 1 WHERE id = ? AND "
                       "status = 'running' AND attempts > 0", (number,))

    def requeue(self, number: int) -> None:
        with self.transaction() as db:
            db.execute("UPDATE submissions SET status = 'queued' WHERE id = ?", (number,))

    def finish(self, number: int, report: Report, exercise_digest: str, error: str | None = None,
               seconds: float | None = None) -> None:
        """`seconds`: how long the grading itself took (a worker's wall-clock time)."""
        with self.transaction(durable=False) as db:
            before = db.execute("SELECT student, exercise, report FROM submissions WHERE id = ? AND report IS NOT NULL",
                                (number,)).fetchone()
            old = pickle.loads(before[2]).score if before is not None else report.score
            if old != report.score:  # graded again, to another score: a row of the audit
                _audit(db, Change(before[0], before[1], number, "regrade", "grader", time.time(), old, report.score,
                                  error or "graded again (the exercise or the grader changed)"))
            db.execute("UPDATE submissions SET status = ?, report = ?, exercise_digest = ?, error = ?, graded_at = ?, "
                       "grading_seconds = ? WHERE id = ?", ("error" if error else "done", pickle.dumps(report),
                                                            exercise_digest, error, time.time(), seconds, number))

    def regrade(self, numbers: list[int]) -> None:
        """Back to the queue, with a fresh count of tries; the old report stays until the new one replaces it."""
        with self.transaction() as db:
            db.executemany("UPDATE submissions SET status = 'queued', attempts = 0, error = NULL WHERE id = ?",
                           [(n,) for n in numbers])

    # ------------------------------------------------------------ overrides
    def set_override(self, override: Override) -> None:
        """The override, and its row in the audit: from the override before (none: NULL) to this one."""
        with self.transaction() as db:
            _put_override(db, override, "override", None)

    def overrides(self) -> dict[tuple[str, str], Override]:
        rows = self.read("SELECT student, exercise, score, reason, staff_member, at FROM overrides")
        return {(row[0], row[1]): Override(*row) for row in rows}


    # ------------------------------------------------------------ reviews
    def save_review(self, review: Review, change: Change) -> None:
        """A submission's review, replacing the one before (a released one stays released), and its audit row."""
        with self.transaction() as db:
            db.execute(f"INSERT INTO reviews ({_REVIEW}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL) "
                       "ON CONFLICT (submission) DO UPDATE SET items = excluded.items, comments = excluded.comments, "
                       "summary = excluded.summary, points = excluded.points, staff_member = excluded.staff_member, "
                       "at = excluded.at",
                       (review.submission, review.student, review.exercise,
                        json.dumps([list(item) for item in review.items]),
                        json.dumps([list(comment) for comment in review.comments]), review.summary,
                        review.points, review.by, review.at))
            _audit(db, change)

    def review(self, submission: int) -> Review | None:
        found = self.reviews(submission=submission)
        return found[0] if found else None

    def reviews(self, student: str | None = None, exercise: str | None = None, submission: int | None = None,
                released: bool | None = None) -> list[Review]:
        clauses, values = [], []
        for column, value in (("student", student), ("exercise", exercise), ("submission", submission)):
            if value is not None:
                clauses.append(f"{column} = ?")
                values.append(value)
        if released is not None:
            clauses.append(f"released_at IS {'NOT ' if released else ''}NULL")
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.read(f"SELECT {_REVIEW} FROM reviews {where} ORDER BY submission", tuple(values))
        return [Review(row[0], row[1], row[2], tuple((i, float(p), d) for i, p, d in json.loads(row[3])),
                       tuple((int(n), t) for n, t in json.loads(row[4])), *row[5:]) for row in rows]

    def release(self, numbers: list[int], at: float, changes: list[Change]) -> None:
        """These submissions' reviews shown to their students from now on, with the audit's rows."""
        with self.transaction() as db:
            db.executemany("UPDATE reviews SET released_at = ? WHERE submission = ? AND released_at IS NULL",
                           [(at, number) for number in numbers])
            for change in changes:
                _audit(db, change)

    # ------------------------------------------------------------ regrade requests
    def add_request(self, submission: Submission, about: str, text: str, at: float) -> int:
        with self.transaction() as db:
            number = int(db.execute(
                "INSERT INTO regrade_requests (submission, student, exercise, about, status, at) "
                "VALUES (?, ?, ?, ?, 'open', ?) RETURNING id",
                (submission.id, submission.student, submission.exercise, about, at)).fetchone()[0])
            db.execute("INSERT INTO request_messages (request, author, staff, text, at, score) VALUES (?, ?, 0, ?, ?, NULL)",
                       (number, submission.student, text, at))
        return number

    def answer_request(self, request: RegradeRequest, author: str, text: str, at: float,
                       score: float | None = None, change: Change | None = None) -> None:
        """Staff's answer; with `score`, the new score of the submission asked about (Submission.answered)
        and `change`, its audit row, in the same transaction."""
        with self.transaction() as db:
            db.execute("INSERT INTO request_messages (request, author, staff, text, at, score) VALUES (?, ?, 1, ?, ?, ?)",
                       (request.id, author, text, at, score))
            db.execute("UPDATE regrade_requests SET status = 'answered' WHERE id = ?", (request.id,))
            if change is not None:
                _audit(db, change)

    def follow_up(self, request: RegradeRequest, author: str, text: str, at: float) -> None:
        """The student writes again on their request: open again for staff."""
        with self.transaction() as db:
            db.execute("INSERT INTO request_messages (request, author, staff, text, at, score) VALUES (?, ?, 0, ?, ?, NULL)",
                       (request.id, author, text, at))
            db.execute("UPDATE regrade_requests SET status = 'open' WHERE id = ?", (request.id,))

    def request(self, number: int) -> RegradeRequest | None:
        rows = self.read(f"SELECT {_REQUEST} FROM regrade_requests WHERE id = ?", (number,))
        return RegradeRequest(*rows[0]) if rows else None

    def requests(self, student: str | None = None, submission: int | None = None) -> list[RegradeRequest]:
        clauses, values = [], []
        for column, value in (("student", student), ("submission", submission)):
            if value is not None:
                clauses.append(f"{column} = ?")
                values.append(value)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.read(f"SELECT {_REQUEST} FROM regrade_requests {where} ORDER BY id", tuple(values))
        return [RegradeRequest(*row) for row in rows]

    def messages(self, request: int) -> list[Message]:
        rows = self.read("SELECT id, request, author, staff, text, at, score FROM request_messages "
                          "WHERE request = ? ORDER BY id", (request,))
        return [Message(row[0], row[1], row[2], bool(row[3]), *row[4:]) for row in rows]

    # ------------------------------------------------------------ the audit
    def audit(self, student: str | None = None) -> list[Change]:
        where, values = ("WHERE student = ?", (student,)) if student is not None else ("", ())
        rows = self.read("SELECT student, exercise, submission, what, who, at, before, after, why FROM audit "
                          f"{where} ORDER BY at, id", values)
        return [Change(*row) for row in rows]


def _put_override(db: Any, override: Override, what: str, submission: int | None) -> None:
    old = db.execute("SELECT score FROM overrides WHERE student = ? AND exercise = ?",
                     (override.student, override.exercise)).fetchone()
    db.execute("INSERT INTO overrides VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (student, exercise) DO UPDATE "
               "SET score = excluded.score, reason = excluded.reason, staff_member = excluded.staff_member, "
               "at = excluded.at",
               (override.student, override.exercise, override.score, override.reason, override.by, override.at))
    _audit(db, Change(override.student, override.exercise, submission, what, override.by, override.at,
                      old[0] if old else None, override.score, override.reason))


def _audit(db: Any, change: Change) -> None:
    db.execute("INSERT INTO audit (student, exercise, submission, what, who, at, before, after, why) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (change.student, change.exercise, change.submission, change.what, change.who, change.at,
                change.before, change.after, change.why))
