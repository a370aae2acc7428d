"""A student's seed: HMAC-SHA256 of the course's secret over the exercise id and the student id. Nothing is
stored: every entry point that knows the course, the exercise and the student computes the same seed, and
no edit of a spec's text moves it (the seed never reads the spec)."""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

from grader.records import record

SECRET_VARIABLE = "GRADER_COURSE_SECRET"  # wins over the file: a server or CI keeps it out of the course's tree
SECRET_FILE = "variants.secret"  # in the exercises folder: hidden from every sandbox, never in a student bundle
STUDENT_VARIABLE = "GRADER_STUDENT"  # `grader check`'s student when --student is not given
SHORT = 8  # hex digits of a variant's id, as reports show it


class SecretMissing(Exception):
    """An exercise with params, and no course secret to derive its students' seeds from."""


@record
class Seed:
    value: int  # what the course's generator is called with (64 bits)
    hex: str  # the whole HMAC, hex

    @property
    def short(self) -> str:
        """The variant's id in reports: the seed's first hex digits."""
        return self.hex[:SHORT]


def course_secret(exercises_dir: Path) -> bytes:
    """The course's secret: $GRADER_COURSE_SECRET, else the exercises folder's variants.secret."""
    if os.environ.get(SECRET_VARIABLE):
        return os.environ[SECRET_VARIABLE].encode()
    path = exercises_dir / SECRET_FILE
    try:
        secret = path.read_bytes().strip()
    except OSError:
        secret = b""
    if not secret:
        raise SecretMissing(
            f"the exercise has params (a variant per student) but the course has no secret: set "
            f"${SECRET_VARIABLE}, or write one into {path}, e.g. python3 -c \"import secrets; "
            f"print(secrets.token_hex(32))\" > {path} (keep it out of a public repository)")
    return secret


def seed_of(secret: bytes, exercise_id: str, student: str) -> Seed:
    # surrogateescape: a folder name that is not UTF-8 (a batch's student) still names one student
    mac = hmac.new(secret, f"{exercise_id}\0{student}".encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()
    return Seed(int(mac[:16], 16), mac)
