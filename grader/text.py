"""What every output says the same way: points, CPU time, student text made visible, and what a failed test
shows below its feedback. Plain strings only: an output that imports this pays for neither rich nor jinja2."""

from __future__ import annotations

import re
from dataclasses import replace
from json.encoder import encode_basestring_ascii  # type: ignore[attr-defined]

from grader.model import Outcome, Report, Verdict

DIFF_CAPTION = "difference (· is a space, → a tab):"
NOTHING = "(nothing)"  # the actual side of a wrong answer that printed or returned nothing

# Characters that may be what str.isprintable() refuses: the C0/C1 controls, and every non-ASCII one
# (the invisible format characters of category Cf, the bidi controls such as U+061C and U+202E, odd
# spaces, separators, unassigned code points) that could reorder or hide what a teacher reads.
_MAYBE_HIDDEN = re.compile(r"[^\t\n\x20-\x7e]")
# Letters by category that render as blanks (the Hangul fillers): shown as escapes too.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")


def points(value: float) -> str:
    """2 for 2.0, 2.5 for 2.5."""
    return f"{value:g}"


def cpu_time(outcome: Outcome) -> str:
    """'0.12 / 2.00 s'; nothing for a test that did not run or has no limit."""
    if outcome.verdict == Verdict.SKIPPED or outcome.limit_seconds == 0:
        return ""
    return f"{outcome.cpu_seconds:.2f} / {outcome.limit_seconds:.2f} s"


def escape_controls(text: str) -> str:
    # Lone surrogates (from a student's str) cannot be encoded for the terminal: show them as escapes too.
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return _MAYBE_HIDDEN.sub(_escape_one, text)


def text_of_name(name: str) -> str:
    """A file name as text every later stage takes (a store, a report): a byte that is no UTF-8, which os
    gives as a lone surrogate, written as its escape (jos\\xe9); any other lone surrogate as \\udXXX."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        pass
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    if char.isprintable() and char not in _BLANK_LETTERS:  # a letter, a symbol, an ideograph: as it is
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def body_form(outcome: Outcome) -> str:
    """How a failed test's body is laid out where there is room: "diff" (a wrong answer's difference over
    several lines), "side" (a wrong answer's expected beside actual), "details" (a traceback, a rule's
    message) or "" (nothing; always for a hidden test)."""
    if outcome.hidden:
        return ""
    if outcome.verdict == Verdict.WRONG_ANSWER:
        return "diff" if outcome.details and "\n" in outcome.details else "side"
    return "details" if outcome.details else ""


def diff_lines(details: str) -> list[tuple[str, str]]:
    """Each line of a difference with its part: "del" (expected only), "add" (actual only) or "" (context)."""
    return [(_diff_part(line), line) for line in details.splitlines()]


def _diff_part(line: str) -> str:
    if line.startswith("-") and not line.startswith("---"):
        return "del"
    return "add" if line.startswith("+") and not line.startswith("+++") else ""


def plain_body(outcome: Outcome) -> str:
    """A failed test's body as plain text, for outputs with no room for layout: its input, a wrong answer's
    expected and actual values, then the details; nothing of a hidden test."""
    if outcome.hidden:
        return ""
    parts = [f"input:\n{outcome.input}"] if outcome.input and outcome.verdict != Verdict.PASSED else []
    if outcome.verdict == Verdict.WRONG_ANSWER and outcome.expected is not None:
        parts += [f"expected:\n{outcome.expected}", f"actual:\n{outcome.actual or ''}"]
    if outcome.details:
        parts.append(outcome.details)
    parts += [f"{name}:\n{text}" for name, text in (("printed", outcome.stdout), ("stderr", outcome.stderr)) if text]
    return "\n".join(parts)


def headline(outcome: Outcome) -> str:
    """'wrong_answer: expected 3, got 4'; the verdict once when the feedback starts with it already."""
    verdict, feedback = str(outcome.verdict), outcome.feedback
    if not feedback or feedback.startswith(f"{verdict}:"):
        return feedback or verdict
    return f"{verdict}: {feedback}"


FEEDBACK_WIDTH = 2000  # a one-line feedback's share of a test's report


def bounded(outcome: Outcome, output_kib: int) -> Outcome:
    """`outcome` with the texts a submission can fill (its output, its value, a diff, a traceback) cut so
    that every output prints at most the test's output limit for them, plus a fixed margin: a report
    stays small whatever a submission prints, returns or forges."""
    share = max((output_kib << 10) // 3, FEEDBACK_WIDTH)  # expected, actual and details share the limit
    return replace(outcome, feedback=clipped(outcome.feedback, FEEDBACK_WIDTH),
                   details=clipped(outcome.details, share),
                   expected=None if outcome.expected is None else clipped(outcome.expected, share),
                   actual=None if outcome.actual is None else clipped(outcome.actual, share),
                   input=None if outcome.input is None else clipped(outcome.input, share))  # a big stdin


LINE_WIDTH = 100  # what a line break costs: a terminal pads each line of a panel out to its width


def width(text: str) -> int:
    """How wide `text` can get in any output: its JSON form with every non-ASCII character escaped (the
    widest of them), plus what HTML's entities add, and a line's width for each line break."""
    return len(encode_basestring_ascii(text)) + 4 * sum(map(text.count, "&<>'\"")) + LINE_WIDTH * text.count("\n")


def clipped(text: str, most: int) -> str:
    """`text`, cut to a prefix of at most `most` wide (see width) with a note of what was cut."""
    if len(text) <= most and width(text) <= most:
        return text
    low, high = 0, min(len(text), most)  # the longest prefix that fits, found by halving
    while low < high:
        middle = (low + high + 1) // 2
        if width(text[:middle]) <= most:
            low = middle
        else:
            high = middle - 1
    return text[:low] + f"\n... ({len(text) - low} characters cut)"


# Verdicts that stop the whole file, and how grading words a problem of the file itself rather than of a
# test (it cannot be read, did not load): reports say it once, not on every test's row.
WHOLE_FILE_VERDICTS = (Verdict.SYNTAX_ERROR, Verdict.RULE_VIOLATION, Verdict.GRADER_ERROR, Verdict.MISSING)
FILE_PHRASES = ("while loading the file", "cannot read the file", "the file is ")


def shared_problem(outcomes: tuple[Outcome, ...] | list[Outcome]) -> Outcome | None:
    """The one outcome every test shares when the file itself stopped them all (missing, does not parse,
    breaks a rule, cannot be read or stopped while loading); None when the tests ran."""
    if not outcomes or len({(o.verdict, o.feedback, o.details) for o in outcomes}) != 1:
        return None
    first = outcomes[0]
    if first.verdict in WHOLE_FILE_VERDICTS or any(phrase in first.feedback for phrase in FILE_PHRASES):
        return first
    return None  # tests that ran and failed alike: each is told


def whole_file_problem(report: Report) -> Outcome | None:
    return shared_problem(report.outcomes)
