"""Uploads stored by group commit. A hand-in is written and fsynced by its own request (concurrent fsyncs
share the filesystem's journal commits); the uploads that arrive while a group is being stored then wait,
and the next group stores them together: their folders renamed to their ids, one fsync of uploads/, one
database transaction. Each is acknowledged only once its row is committed, so a server killed at any moment
loses nothing it acknowledged. A lone upload is stored at once: no timer, only what is already waiting."""

from __future__ import annotations

import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

UPLOADS = "uploads"
INCOMING = ".incoming-"  # uploads/.incoming-*: received, not stored yet (never graded)
# "off": every upload committed alone, as before the group commit. Only benchmarks/uploads.py sets it, to
# measure the difference in one run; a server has no reason to.
GROUPED = "GRADER_GROUP_COMMIT"
MOST = 256  # uploads in one group: one transaction's size stays bounded under any storm

T = TypeVar("T")
R = TypeVar("R")


class NotAdmitted(Exception):
    """An upload the course's rules refuse once its turn comes (the rate counted with the rows before it)."""

    def __init__(self, refusal: object) -> None:
        super().__init__("refused by the course's rules")
        self.refusal = refusal


@dataclass(frozen=True, slots=True)
class Upload:
    student: str
    exercise: str
    sent_name: str
    suffix: str
    incoming: Path
    """The folder `receive` wrote the hand-in to, fsynced."""
    sha256: str
    admit: Callable[[], object | None] = lambda: None
    """The course's rules, asked again under the writer's lock: a refusal, or None."""
    key: Hashable = None
    """Uploads with the same key are never in one group: a rule counting the rows before (a rate per student
    and exercise) sees each one's predecessors committed. None: the student and the exercise."""

    def group_key(self) -> Hashable:
        return (self.student, self.exercise) if self.key is None else self.key


@dataclass(eq=False)
class _Ticket(Generic[T]):
    item: T
    result: Any = None
    failure: BaseException | None = None
    done: bool = False
    woken: threading.Event = field(default_factory=threading.Event)


class GroupCommit(Generic[T, R]):
    """Leader and followers: the first caller while no group is in flight stores the group (itself and
    whatever waits), then hands the lead to the first caller still waiting and returns; the others sleep
    until their own result is in. `flush` stores a group and returns one result or exception per item."""

    def __init__(self, flush: Callable[[list[T]], list[R | BaseException]], key: Callable[[T], Hashable],
                 grouped: bool | None = None) -> None:
        self._flush, self._key = flush, key
        self.grouped = os.environ.get(GROUPED, "on") != "off" if grouped is None else grouped
        self._lock = threading.Lock()
        self._waiting: list[_Ticket[T]] = []
        self._busy = False
        self.groups = 0
        """How many groups were stored: fewer than the items when they came together."""

    @property
    def waiting(self) -> int:
        """Callers waiting for a group: the depth of the queue in front of the disk."""
        with self._lock:
            return len(self._waiting)

    def __call__(self, item: T) -> R:
        ticket = _Ticket(item)
        with self._lock:
            self._waiting.append(ticket)
            leads, self._busy = not self._busy, True
        if not leads:
            ticket.woken.wait()  # set when its result is in, or when the lead is handed to it
        if not ticket.done:
            self._lead()
        if ticket.failure is not None:
            raise ticket.failure
        result: R = ticket.result
        return result

    def _lead(self) -> None:
        with self._lock:
            group = self._take()
            self.groups += 1
        try:
            results: list[Any] = self._flush([ticket.item for ticket in group])
        except BaseException as failure:  # noqa: BLE001 - every waiter hears it, then the leader raises it
            results = [failure] * len(group)
        for ticket, result in zip(group, results, strict=True):
            ticket.failure, ticket.result = (result, None) if isinstance(result, BaseException) else (None, result)
            ticket.done = True
        with self._lock:
            if self._waiting:
                self._waiting[0].woken.set()  # not done: it leads the next group
            else:
                self._busy = False
        for ticket in group[1:]:  # group[0] is the leader's own
            ticket.woken.set()

    def _take(self) -> list[_Ticket[T]]:
        """The group: the first waiting (the leader's own), then every other whose key is not in it yet."""
        if not self.grouped:
            return [self._waiting.pop(0)]
        group, keys, rest = [], set(), []
        for ticket in self._waiting:
            key = self._key(ticket.item)
            if key in keys or len(group) == MOST:
                rest.append(ticket)
            else:
                keys.add(key)
                group.append(ticket)
        self._waiting = rest
        return group


def receive(folder: Path, data: bytes, name: str) -> Path:
    """The hand-in on disk, fsynced, in a folder of its own under uploads/ that its group renames after the
    submission: written by the request itself, so that the fsyncs of many overlap the group being stored."""
    incoming = folder / UPLOADS / f"{INCOMING}{secrets.token_hex(8)}"
    incoming.mkdir(mode=0o700)
    descriptor = os.open(incoming / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view):]
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    fsync_folder(incoming)
    return incoming


def discard(incoming: Path) -> None:
    shutil.rmtree(incoming, ignore_errors=True)


def store_group(state: Any, uploads: list[Upload]) -> list[int | BaseException]:
    """The rows of a group of received uploads (`state`: a State), each admitted by the rules in turn:
    one id, NotAdmitted or the error per upload. If the group's transaction fails, each is tried alone,
    so that one bad upload costs the others nothing."""
    with state.lock:  # the rules' counts and the rows: no other write of this server between them
        results: list[int | BaseException] = [_admitted(upload) for upload in uploads]
        admitted = [index for index, result in enumerate(results) if result == -1]
        try:
            stored = _rows(state, [uploads[index] for index in admitted]) if admitted else []
        except Exception as failure:  # noqa: BLE001 - one of them, or the database: each alone tells which
            stored = [_alone(state, uploads[index]) for index in admitted] if len(admitted) > 1 else [failure]
        for index, result in zip(admitted, stored, strict=True):
            results[index] = result
    for upload, result in zip(uploads, results, strict=True):
        if isinstance(result, BaseException):
            discard(upload.incoming)
    return results


def _admitted(upload: Upload) -> int | BaseException:
    """-1 (admitted), or why not: the rules' refusal, or the error that kept them from answering."""
    try:
        refusal = upload.admit()
    except Exception as failure:  # noqa: BLE001 - this upload's own: its caller hears it
        return failure
    return NotAdmitted(refusal) if refusal is not None else -1


def _alone(state: Any, upload: Upload) -> int | BaseException:
    try:
        return _rows(state, [upload])[0]
    except Exception as failure:  # noqa: BLE001 - this upload's own: its caller hears it
        return failure


def _rows(state: Any, uploads: list[Upload]) -> list[int | BaseException]:
    """One transaction: a row per upload, its folder renamed to uploads/ID, one fsync of uploads/, the
    commit. An upload whose folder cannot be renamed loses its row and gets its error; on a failure of the
    whole, the folders go back where they were."""
    results: list[int | BaseException] = []
    moved: list[tuple[Path, Path]] = []
    try:
        with state.transaction() as db:
            for upload in uploads:
                number = int(db.execute(
                    "INSERT INTO submissions (student, exercise, file, sent_name, sha256, submitted_at, status) "
                    "VALUES (?, ?, '', ?, ?, ?, 'queued') RETURNING id",
                    (upload.student, upload.exercise, upload.sent_name, upload.sha256, time.time())).fetchone()[0])
                relative = Path(UPLOADS) / str(number) / f"{upload.exercise}{upload.suffix}"
                target = state.folder / relative.parent
                try:
                    if target.exists():  # left by a row never committed (a crash, a rollback): the id is ours
                        shutil.rmtree(target)
                    os.rename(upload.incoming, target)
                except OSError as failure:
                    db.execute("DELETE FROM submissions WHERE id = ?", (number,))
                    results.append(failure)
                    continue
                moved.append((upload.incoming, target))
                db.execute("UPDATE submissions SET file = ? WHERE id = ?", (str(relative), number))
                results.append(number)
            if moved:
                fsync_folder(state.folder / UPLOADS)
    except BaseException:
        for incoming, target in moved:
            os.rename(target, incoming)
        raise
    return results


def fsync_folder(folder: Path) -> None:
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
