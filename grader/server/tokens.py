"""Who may submit: a secret token per student (and per member of staff), stored as its sha256 only.

A token is 32 random bytes, so a plain sha256 is enough to make a stolen database useless (no slow hash is
needed against guessing: there is nothing to guess). The lookup is by digest; the digest found is then
compared in constant time, so no timing tells a caller how much of a token was right."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from grader.outputs.cells import csv_text
from grader.records import record
from grader.server.state import State

PREFIX = "gt_"  # a grader token is recognisable in a leaked log


@record
class Caller:
    student: str  # for staff: the staff member's name
    staff: bool


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def issue(state: State, student: str, staff: bool = False) -> str:
    token = PREFIX + secrets.token_urlsafe(32)
    state.add_token(digest(token), student, staff)
    return token


def caller_of(state: State, token: str | None) -> Caller | None:
    if not token or len(token) > 200:
        return None
    wanted = digest(token)
    found = state.token(wanted)
    if found is None or not hmac.compare_digest(found[0], wanted):
        return None
    return Caller(found[1], found[2])


def issue_for_roster(state: State, students: list[str]) -> str:
    """One new token per student, as CSV: student,token; lines end in a bare LF, so that `cut -d, -f2` or
    a shell's `read` gives the token alone (a CRLF line left a \r on every token cut from it)."""
    return csv_text([("student", "token"), *((student, issue(state, student)) for student in students)],
                    line_end="\n")
