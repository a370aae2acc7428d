"""A student's work in progress on an exercise, saved as they type: one draft per student and exercise, each
save answered with a receipt (its revision, its bytes' sha256, the server's time). A save names the revision
it was edited from; a save from an older one (another tab, a page left open) is refused with the draft as it
is, so two tabs never fork the work: whatever the last receipt holds is what is kept. The compare-and-set is
one UPDATE ... WHERE revision = ?, right on servers sharing one database too. An exam grades the last draft
at its end (Artemis's lost hand-ins, PrairieLearn's grading of saved work: issue 45)."""

from __future__ import annotations

import hashlib
import time
from typing import Any

from grader.records import record
from grader.server.inputs import Refused

CODE_MOST_CHARACTERS = 1_000_000  # a draft is source text a student typed; the server's upload cap also applies


@record
class Draft:
    student: str
    exercise: str
    revision: int  # 1 for the first save; 0: nothing saved yet
    code: str
    sha256: str
    saved_at: float

    def receipt(self) -> dict[str, Any]:
        """What a save is answered with, and what a page keeps to prove what the server holds."""
        return {"exercise": self.exercise, "revision": self.revision, "sha256": self.sha256,
                "bytes": len(self.code.encode()), "saved_at": iso(self.saved_at)}

    def shown(self) -> dict[str, Any]:
        return {**self.receipt(), "code": self.code}


class Stale(Exception):
    """A save edited from a revision that is not the draft's latest: `current` is what the server holds."""

    def __init__(self, current: Draft | None) -> None:
        super().__init__("stale")
        self.current = current


def code_of(value: object, most_bytes: int) -> str:
    """A draft's text as a client sent it: a string the database can store (no NUL, no lone surrogate)."""
    if not isinstance(value, str):
        raise Refused(422, '"code" is the text of the work, a string')
    if len(value) > CODE_MOST_CHARACTERS or len(value.encode("utf-8", "surrogatepass")) > most_bytes:
        raise Refused(413, f"a draft is at most {min(most_bytes, CODE_MOST_CHARACTERS)} bytes")
    if "\0" in value or any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        raise Refused(422, '"code" holds a NUL or a lone surrogate, which no source file can')
    return value


def base_of(value: object) -> int:
    """The revision a save was edited from: 0 when the page began from no draft."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**62:
        raise Refused(422, '"base" is the revision the work was edited from: a whole number, 0 for none')
    return value


def latest(state: Any, student: str, exercise: str) -> Draft | None:
    found = state.read(_SELECT, (student, exercise))  # the reader's connection: never behind a commit
    return Draft(student, exercise, *found[0]) if found else None


def save(state: Any, student: str, exercise: str, code: str, base: int, now: float | None = None) -> Draft:
    """The draft saved as revision base + 1, durably (committed and on disk before the receipt), or Stale."""
    at = time.time() if now is None else now
    digest = hashlib.sha256(code.encode("utf-8")).hexdigest()
    with state.transaction() as db:
        if base == 0:  # the first save: only if no other tab (or server) made one
            changed = db.execute("INSERT INTO drafts (student, exercise, revision, code, sha256, saved_at) "
                                 "VALUES (?, ?, 1, ?, ?, ?) ON CONFLICT DO NOTHING",
                                 (student, exercise, code, digest, at))
        else:
            changed = db.execute("UPDATE drafts SET revision = revision + 1, code = ?, sha256 = ?, saved_at = ? "
                                 "WHERE student = ? AND exercise = ? AND revision = ?",
                                 (code, digest, at, student, exercise, base))
        if changed.rowcount != 1:
            raise Stale(_current(db, student, exercise))
    return Draft(student, exercise, base + 1, code, digest, at)


_SELECT = "SELECT revision, code, sha256, saved_at FROM drafts WHERE student = ? AND exercise = ?"


def _current(db: Any, student: str, exercise: str) -> Draft | None:
    found = db.execute(_SELECT, (student, exercise)).fetchall()
    return Draft(student, exercise, *found[0]) if found else None


def iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
