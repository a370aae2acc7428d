"""Who may submit: a secret token per student (and per member of staff), stored as its sha256 only.

A token is 32 random bytes, so a plain sha256 is enough to make a stolen database useless (no slow hash is
needed against guessing: there is nothing to guess). The lookup is by digest; the digest found is then
compared in constant time, so no timing tells a caller how much of a token was right."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from grader.outputs.cells import csv_text
from grader.server.roles import LEVELS, Caller, Role, level_of
from grader.server.state import State

__all__ = ["Caller", "Role", "caller_of", "digest", "issue", "issue_for_roster"]

PREFIX = "gt_"  # a grader token is recognisable in a leaked log


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def issue(state: State, student: str, role: Role = Role.STUDENT) -> str:
    token = PREFIX + secrets.token_urlsafe(32)
    state.add_token(digest(token), student, level_of(role))
    return token


def caller_of(state: State, token: str | None) -> Caller | None:
    if not token or len(token) > 200:
        return None
    wanted = digest(token)
    found = state.token(wanted)
    if found is None or not hmac.compare_digest(found[0], wanted):
        return None
    return Caller(found[1], LEVELS.get(int(found[2]), Role.STUDENT))


def issue_for_roster(state: State, students: list[str]) -> str:
    """One new token per student, as CSV: student,token; lines end in a bare LF, so that `cut -d, -f2` or
    a shell's `read` gives the token alone (a CRLF line left a \r on every token cut from it)."""
    return csv_text([("student", "token"), *((student, issue(state, student)) for student in students)],
                    line_end="\n")
