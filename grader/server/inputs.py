"""What a request may carry, checked here and nowhere else: ids, names, scores, seconds, JSON bodies. Each
parser answers the value or raises `Refused` with a status and a reason a client can act on, which the
handler answers as it is (a 4xx): no input reaches the database, a float or a template unchecked."""

from __future__ import annotations

import json
import math
import re

MAX_ID = 2**63 - 1  # SQLite's INTEGER and PostgreSQL's BIGINT: a longer id overflows in the database
_DIGITS = re.compile(r"[0-9]{1,19}")  # ASCII only: str.isdigit() takes '²' and '٣', which int() refuses or reads
_DECIMAL = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})")  # float() takes 'nan', '1_0', '٣'
NAME_MOST = 200


class Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


def submission_id(text: str) -> int | None:
    """A submission's id from a path, or None: no such submission (ASCII digits, 1 to 2**63 - 1)."""
    if not _DIGITS.fullmatch(text):
        return None
    number = int(text)
    return number if 1 <= number <= MAX_ID else None


def name(value: object, what: str) -> str:
    """A student's or an exercise's name as a client sent it: text of 1 to 200 characters with no control
    character (PostgreSQL refuses NUL in text) and no lone surrogate (not UTF-8: no database stores it)."""
    if isinstance(value, str) and 0 < len(value) <= NAME_MOST and not _unstorable(value):
        return value
    raise Refused(422, f"{what} is text of 1 to {NAME_MOST} characters, no control characters")


def text(value: object, what: str, most: int) -> str:
    """Free text (a reason): at most `most` characters, controls but line breaks and tabs refused."""
    if isinstance(value, str) and len(value) <= most and not _unstorable(value.replace("\n", " ").replace("\t", " ")):
        return value
    raise Refused(422, f"{what} is text of at most {most} characters, no control characters")


def _unstorable(value: str) -> bool:
    return any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF for c in value)


def file_name(sent: str) -> str:
    """The name a client gave its file, as text to show and store (never a path): controls, tabs, line
    breaks, bidirectional overrides and lone surrogates as escapes, its last 200 characters."""
    from grader.text import escape_controls

    return escape_controls(sent).replace("\t", "\\t").replace("\n", "\\n")[-NAME_MOST:]


def score(value: object, most: float) -> float:
    """A score a member of staff gives: a JSON number, finite, from 0 to the exercise's points."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Refused(422, "score is a number")
    try:
        number = float(value)
    except OverflowError:  # an int past a float's range
        number = math.inf
    if not math.isfinite(number) or not 0 <= number <= most:
        raise Refused(422, f"score is a number from 0 to {most:g}, the exercise's points")
    return number


def score_text(value: object, most: float) -> float:
    """A score typed in a form: a plain decimal number (no 'nan', 'inf', exponent or non-ASCII digit)."""
    if not isinstance(value, str) or not _DECIMAL.fullmatch(value.strip()):
        raise Refused(422, f"score is a number from 0 to {most:g}, the exercise's points")
    return score(float(value), most)


def seconds(value: str | None, most: float) -> float:
    """?wait=S: absent is 0; a plain decimal number, held between 0 and `most`."""
    if value is None or value == "":
        return 0.0
    if not _DECIMAL.fullmatch(value):
        raise Refused(422, f"wait is a number of seconds, at most {most:g}")
    return min(max(float(value), 0.0), most)


def json_body(data: bytes, shape: str) -> dict[str, object]:
    """A request's body as a JSON object, strictly: no NaN or Infinity, no number that is infinite as a float
    (1e999), no nesting that would exhaust the parser's stack. `shape`: what the reason says is wanted."""
    try:
        value = json.loads(data, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise Refused(422, f"the body is a JSON object: {shape}") from None
    if not isinstance(value, dict):
        raise Refused(422, f"the body is a JSON object: {shape}")
    return value


def _no_constant(constant: str) -> float:
    raise ValueError(f"{constant} is not JSON")


def _finite(literal: str) -> float:
    number = float(literal)
    if not math.isfinite(number):
        raise ValueError(f"{literal} is not a finite number")
    return number


def strict_json(value: object) -> str:
    """JSON as the server writes it: ASCII (a lone surrogate from a student's text stays an inert escape)
    and strict (NaN or Infinity raise here rather than reach a client that cannot parse them)."""
    return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
