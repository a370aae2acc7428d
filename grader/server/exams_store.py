"""The server's side of exams: each student's start (the server's time, a staff test run or not), their log
(opened, saves, refusals, disconnects, address changes, submissions), and the sweep that submits each
exercise's last draft once a student's time is up. The sweep is idempotent across restarts and across
servers sharing a database: a student's end is claimed in one UPDATE, and each exercise's hand-in is
recorded (exam_handins) so that a sweep taken over after a crash submits only what is missing."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from grader.records import record
from grader.server import drafts
from grader.server.exams import Exam, ends_at, quiet_gap

GAP = 45.0  # seconds without word from a page that the log calls a disconnect (the page calls every 15 s)
RETAKE = 120.0  # seconds after which another server may take over a sweep claimed but never finished


@record
class Start:
    exam: str
    student: str
    started_at: float
    test_run: bool
    address: str | None
    last_seen: float
    graded_at: float | None


@record
class Event:
    at: float
    what: str  # opened, save, refused, disconnect, address, submitted, ended
    detail: dict[str, Any]


_START = "exam, student, started_at, test_run, address, last_seen, graded_at"


def _start(row: Any) -> Start:
    return Start(row[0], row[1], row[2], bool(row[3]), row[4], row[5], row[6])


def started(state: Any, exam: str, student: str) -> Start | None:
    found = state.read(f"SELECT {_START} FROM exam_starts WHERE exam = ? AND student = ?", (exam, student))
    return _start(found[0]) if found else None


def starts(state: Any, exam: str) -> list[Start]:
    return [_start(row) for row in state.read(f"SELECT {_START} FROM exam_starts WHERE exam = ? ORDER BY student",
                                               (exam,))]


def start(state: Any, exam: str, student: str, now: float, test_run: bool, address: str | None) -> Start:
    """The student's start: made now if they had none (the first opening starts their time), else theirs.
    Two tabs, or two servers, starting at once make one start."""
    with state.transaction() as db:
        made = db.execute(f"INSERT INTO exam_starts ({_START}) VALUES (?, ?, ?, ?, ?, ?, NULL) ON CONFLICT DO NOTHING",
                          (exam, student, now, int(test_run), address, now)).rowcount == 1
        if made:
            _log(db, exam, student, now, "opened", {"first": True, "address": address, "test_run": test_run})
    found = started(state, exam, student)
    assert found is not None
    return found


def contact(state: Any, exam: Exam, begun: Start, now: float, address: str | None, what: str = "",
            detail: dict[str, Any] | None = None) -> None:
    """Word from the student's page: logged with `what` (opened, save, refused), and what it tells: a
    disconnect (no word for GAP seconds, less in a short exam), an address other than the last one. Not
    waited on to the disk (a page's heartbeat every 15 s): a power cut may lose the last few lines."""
    with state.transaction(durable=False) as db:
        row = db.execute("SELECT last_seen, address FROM exam_starts WHERE exam = ? AND student = ?",
                         (begun.exam, begun.student)).fetchone()
        last_seen, last_address = (row[0], row[1]) if row else (begun.last_seen, begun.address)
        if now - last_seen > quiet_gap(exam, begun.student, GAP):
            _log(db, begun.exam, begun.student, now, "disconnect",
                 {"from": drafts.iso(last_seen), "to": drafts.iso(now), "seconds": round(now - last_seen)})
        if address and last_address and address != last_address:
            _log(db, begun.exam, begun.student, now, "address", {"from": last_address, "to": address})
        if what:
            _log(db, begun.exam, begun.student, now, what, detail or {})
        db.execute("UPDATE exam_starts SET last_seen = ?, address = COALESCE(?, address) WHERE exam = ? AND "
                   "student = ? AND last_seen <= ?", (now, address, begun.exam, begun.student, now))


def log(state: Any, exam: str, student: str | None = None) -> list[tuple[str, Event]]:
    where, values = ("AND student = ?", (exam, student)) if student is not None else ("", (exam,))
    rows = state.read(f"SELECT student, at, what, detail FROM exam_log WHERE exam = ? {where} ORDER BY at, id",
                       values)
    return [(row[0], Event(row[1], row[2], json.loads(row[3]))) for row in rows]


def _log(db: Any, exam: str, student: str, at: float, what: str, detail: dict[str, Any]) -> None:
    db.execute("INSERT INTO exam_log (exam, student, at, what, detail) VALUES (?, ?, ?, ?, ?)",
               (exam, student, at, what, json.dumps(detail, ensure_ascii=True)))


def test_run_submissions(state: Any) -> set[int]:
    """The submissions of staff test runs: graded and shown to their taker, never in the gradebook."""
    return {int(row[0]) for row in state.read("SELECT submission FROM exam_handins WHERE test_run = 1")}


def handins(state: Any, exam: str, student: str) -> list[int]:
    """The submissions the end of the student's exam made, in the exam's order of handing in."""
    return [int(row[0]) for row in state.read("SELECT submission FROM exam_handins WHERE exam = ? AND student = ? "
                                               "ORDER BY submission", (exam, student))]


# ---------------------------------------------------------------- the end of a student's time
def sweep(state: Any, exams: dict[str, Exam], suffix_of: Any, now: float, name: str) -> list[int]:
    """Submit the last draft of each exercise of every student whose time is up, once. `suffix_of`: an
    exercise's hand-in suffix (.py; .txt for a prediction). The submissions made."""
    made: list[int] = []
    for exam in exams.values():
        rows = state.read(f"SELECT {_START} FROM exam_starts WHERE exam = ? AND graded_at IS NULL", (exam.id,))
        for begun in map(_start, rows):
            end = ends_at(exam, begun.student, begun.started_at)
            if now < end or not _claim(state, begun, now, name):
                continue
            made += _submit(state, exam, begun, end, suffix_of, now)
    return made


def _claim(state: Any, begun: Start, now: float, name: str) -> bool:
    with state.transaction() as db:
        changed: int = db.execute("UPDATE exam_starts SET grading_by = ?, grading_at = ? WHERE exam = ? AND "
                                  "student = ? AND graded_at IS NULL AND (grading_at IS NULL OR grading_at < ? OR "
                                  "grading_by = ?)", (name, now, begun.exam, begun.student, now - RETAKE, name)).rowcount
    return changed == 1


def _submit(state: Any, exam: Exam, begun: Start, end: float, suffix_of: Any, now: float) -> list[int]:
    made = []
    handed = {row[0] for row in state.read("SELECT exercise FROM exam_handins WHERE exam = ? AND student = ?",
                                            (exam.id, begun.student))}
    for exercise in exam.exercises:
        draft = drafts.latest(state, begun.student, exercise)
        if exercise in handed or draft is None or draft.saved_at < begun.started_at:
            continue  # submitted already (a sweep taken over), or nothing saved during this exam
        suffix = suffix_of(exercise)
        data = draft.code.encode("utf-8")
        number = state.store(begun.student, exercise, f"{exercise}{suffix}", suffix, data,
                             hashlib.sha256(data).hexdigest())
        with state.transaction() as db:
            db.execute("INSERT INTO exam_handins (exam, student, exercise, submission, revision, test_run) VALUES "
                       "(?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                       (exam.id, begun.student, exercise, number, draft.revision, int(begun.test_run)))
            _log(db, exam.id, begun.student, now, "submitted",
                 {"exercise": exercise, "submission": number, "revision": draft.revision, "sha256": draft.sha256,
                  "saved_at": drafts.iso(draft.saved_at)})
        made.append(number)
    with state.transaction() as db:
        if end - begun.last_seen > quiet_gap(exam, begun.student, GAP):  # no word from the page in the end: it left before the time was up
            _log(db, exam.id, begun.student, now, "disconnect",
                 {"from": drafts.iso(begun.last_seen), "to": None, "seconds": round(end - begun.last_seen)})
        _log(db, exam.id, begun.student, now, "ended", {"at": drafts.iso(end), "submitted": len(made)})
        db.execute("UPDATE exam_starts SET graded_at = ? WHERE exam = ? AND student = ?", (now, exam.id, begun.student))
    return made

