"""Where a wrong answer differs from the expected one, in plain words: the expected and the got line one
under the other, whitespace made visible, the first differing character marked, long values cut to the
region around it. Plain strings only: the terminal draws the rows."""

from __future__ import annotations

from grader.checkers import first_difference, judge_lines, visible
from grader.text import escape_controls
from grader.words import count
from grader.records import record

WINDOW = 64  # characters of a long line or value shown around its first difference
BEFORE = 24  # of them, before it
CONTEXT = 2  # equal lines shown before the first differing one
PAIRS = 3  # differing lines shown, expected over got


@record
class Row:
    label: str  # "line 2", "expected", "got", or "" for a note
    text: str  # already made safe to print: controls escaped
    kind: str  # "same", "expected", "got", "caret" or "note"
    mark: int | None = None  # the index in `text` of the first differing character


def value_difference(expected: str, actual: str) -> list[Row]:
    """Two values' reprs, cut to the same window around their first difference."""
    want, got = escape_controls(expected), escape_controls(actual)
    (want, got), mark = _around(want, got)
    return [Row("expected", want, "expected", mark), Row("got", got, "got", mark), caret(mark)]


def caret(mark: int) -> Row:
    """A ^ under the first differing character: the mark that survives a terminal without colours."""
    return Row("", " " * mark + "^", "caret")


def output_difference(expected: str, actual: str) -> list[Row]:
    """Printed text, compared as the output checker does (trailing spaces and blank lines do not count):
    a few equal lines, then the first lines that differ, each expected over got."""
    want, got = judge_lines(escape_controls(expected)), judge_lines(escape_controls(actual))
    first = next((i for i, (w, g) in enumerate(zip(want, got)) if w != g), min(len(want), len(got)))
    rows = [Row(f"line {i + 1}", want[i], "same") for i in range(max(0, first - CONTEXT), first)]
    differing = [i for i in range(first, max(len(want), len(got)))
                 if i >= len(want) or i >= len(got) or want[i] != got[i]]
    for i in range(first, max(len(want), len(got))):
        if i not in differing[:PAIRS]:
            if i > differing[min(len(differing), PAIRS) - 1]:
                break
            rows.append(Row(f"line {i + 1}", want[i], "same"))
            continue
        rows += _pair(i, want, got)
    if len(differing) > PAIRS:
        later = len(differing) - PAIRS
        rows.append(Row("", f"and {count(later, 'more line')} after {'it differs' if later == 1 else 'them differ'}",
                        "note"))
    return rows


def _pair(i: int, want: list[str], got: list[str]) -> list[Row]:
    """Line i expected over got, a caret at their first difference; a missing line said in words."""
    label, under = f"line {i + 1} expected", " " * len(f"line {i + 1}") + " got"
    if i < len(want) and i < len(got):
        (shown_want, shown_got), mark = _around(visible(want[i]), visible(got[i]))
        return [Row(label, shown_want, "expected", mark), Row(under, shown_got, "got", mark), caret(mark)]
    if i < len(want):
        return [Row(label, visible(want[i]), "expected", 0), Row(under, f"nothing: the output ends after line {i}", "note")]
    return [Row(label, f"nothing: the expected output ends after line {i}", "note"), Row(under, visible(got[i]), "got", 0)]


def _around(want: str, got: str) -> tuple[tuple[str, str], int]:
    """Both texts cut to the same window around their first difference, and its index in the window."""
    at = first_difference(want, got)
    if max(len(want), len(got)) <= WINDOW:
        return (want, got), at
    start = max(0, at - BEFORE)
    boundary = want.rfind(" ", max(0, start - 8), start + 1)  # start at a word or item, not inside one
    start = boundary + 1 if start and boundary >= 0 else start
    prefix = "…" if start else ""
    cut = tuple(prefix + text[start:start + WINDOW] + ("…" if start + WINDOW < len(text) else "")
                for text in (want, got))
    return (cut[0], cut[1]), at - start + len(prefix)
