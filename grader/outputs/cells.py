"""What every CSV the grader writes does to each cell, in one place: a student's text (a folder name, a
roster's or a platform's name, id or email) never runs as a spreadsheet formula, nor hides or reorders
what a teacher reads with a control or bidirectional character."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable

from grader.text import escape_controls

# A spreadsheet runs a cell that starts with one of these as a formula (OWASP's CSV injection): a cell must
# not, at its start nor after a character a spreadsheet may split cells on (a ; in many locales, a tab, a |).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_FORMULA = re.compile(r"(?:^|(?<=[,;\t|\r\n]))(\s*)(?=[=+\-@\t\r])")


def inert(text: str) -> str:
    """`text` with a ' before every part that a spreadsheet could read as a formula."""
    return _FORMULA.sub(r"\1'", text)


def cell(value: object) -> str:
    """One cell as written: a number as it is (a score of -1 is no formula); any other value's text with
    controls escaped, then made inert; None is an empty cell."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return inert(escape_controls(str(value)))


def csv_text(rows: Iterable[Iterable[object]], line_end: str = "\r\n") -> str:
    """Rows as CSV text, every cell through `cell`: the one way a CSV of the grader is written. Lines end
    as RFC 4180 says (CRLF) for the spreadsheets and LMSs that import them; "\n" for a file meant for a
    shell's `cut` and `read` (the tokens), where a CR would stick to the last column."""
    text = io.StringIO(newline="")
    csv.writer(text, lineterminator=line_end).writerows([cell(value) for value in row] for row in rows)
    return text.getvalue()
