"""A student's code for their page, with the lines a traceback or a syntax error points at.

The file is read when the page is written, from the class folder the batch graded (Gradebook.submissions):
only a regular file inside the student's own folder (the batch's own rule: a link out of it is never read),
and only while its text is the one graded (else a page could mark the wrong lines, or show what a link
swapped in after grading points at); at most MAX_CHARACTERS of it are shown. The template escapes the
text like any other student text."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path, PurePosixPath

from markupsafe import Markup

from grader.batch.discover import refused_because
from grader.gradebook import Cell
from grader.handins.text import MAX_FILE_BYTES
from grader.model import Verdict
from grader.records import record
from grader.text import escape_controls

MAX_CHARACTERS = 60_000  # a page stays light; the grader itself reads up to 1 MiB
_FRAME = re.compile(r'File "([^"]*)", line (\d+)')
_SYNTAX = re.compile(r"\bline (\d+)\b")


@record
class Source:
    lines: list[str]
    pointed: frozenset[int]  # 1-based numbers of the lines a traceback or a syntax error names
    note: str  # why what is shown is not the whole graded file; "" when it is


def source_of(submissions: Path | None, cell: Cell) -> Source | None:
    """The code of a graded cell, or None when there is none to show (no file, or a batch did not say where
    the class folder is, or the file is not one the batch read)."""
    if submissions is None or cell.file is None or not re.fullmatch(r"[0-9a-f]{64}", cell.submission_hash):
        return None
    path, parts = submissions / cell.file, PurePosixPath(cell.file).parts
    # A link may point inside the student's own folder (the first part of the path: a platform may name it
    # otherwise than the student); a flat download has no such folder, and then no link is followed.
    if refused_because(path, submissions / parts[0] if len(parts) > 1 else None):
        return None
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)  # what the batch itself reads at most
    except OSError:
        return None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return None
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != cell.submission_hash:
        return None  # changed since it was graded
    return text_source(text, pointed_lines(cell))


def text_source(text: str, pointed: frozenset[int] = frozenset()) -> Source:
    """Code already read (the server's stored hand-in), cut at MAX_CHARACTERS as a page shows it."""
    note = ""
    if len(text) > MAX_CHARACTERS:
        text, note = text[:MAX_CHARACTERS], f"only the first {MAX_CHARACTERS:,} characters are shown"
    return Source(text.splitlines(), pointed, note)


def code_lines(source: Source, prefix: str = "") -> Markup:
    """The one rendering of a student's code, for the batch's pages and the server's: a line each, numbered,
    its anchor `#{prefix}L12` (a link, or a TA's comment on a line, points there), the lines an error points
    at marked in words too. Every line escaped, its control characters shown as \\xNN."""
    parts = []
    for number, line in enumerate(source.lines, start=1):
        pointed = number in source.pointed
        parts.append(Markup('<span class="line{}" id="{}"><span class="no">{}{}</span>{}</span>').format(
            " pointed" if pointed else "", f"{prefix}L{number}", "error → " if pointed else "", number,
            escape_controls(line)))
    return Markup('<pre class="code">{}</pre>').format(Markup("").join(parts))


def pointed_lines(cell: Cell) -> frozenset[int]:
    """Lines of the student's file named by the tracebacks and syntax errors of the cell's visible tests (a
    hidden test's page shows no traceback, and its lines are not given away here either)."""
    names = {"submission.py"} | ({PurePosixPath(cell.file).name} if cell.file else set())
    found: set[int] = set()
    for outcome in (o for o in cell.report.outcomes if not o.hidden):
        text = f"{outcome.feedback}\n{outcome.details}"
        found |= {int(line) for file, line in _FRAME.findall(text) if PurePosixPath(file).name in names}
        if outcome.verdict == Verdict.SYNTAX_ERROR:
            found |= {int(line) for line in _SYNTAX.findall(text)}
    return frozenset(found)
