"""What every output says the same way: points, CPU time, student text made visible, and what a failed test
shows below its feedback. Plain strings only: an output that imports this pays for neither rich nor jinja2."""

from __future__ import annotations

import re

from grader.model import Outcome, Verdict

DIFF_CAPTION = "difference (· is a space, → a tab):"
NOTHING = "(nothing)"  # the actual side of a wrong answer that printed or returned nothing

# What could hide, erase or reorder what a teacher reads: C0/C1 controls (ESC starts OSC 8 links and line
# erasures), every invisible format character of Unicode (category Cf: soft hyphen, U+061C and the other
# bidi marks, overrides and isolates, zero-width characters, tags), the line and paragraph separators, and
# the Hangul fillers that render as blanks. Listed, not computed: building it at import costs the CLI time.
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2"
    "\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0"
    "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]")


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
    return _CONTROL.sub(_escape_one, text)


def _escape_one(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


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
    """A failed test's body as plain text, for outputs with no room for layout: a wrong answer's expected and
    actual values, then the details; nothing of a hidden test."""
    if outcome.hidden:
        return ""
    parts = []
    if outcome.verdict == Verdict.WRONG_ANSWER and outcome.expected is not None:
        parts += [f"expected:\n{outcome.expected}", f"actual:\n{outcome.actual or ''}"]
    if outcome.details:
        parts.append(outcome.details)
    return "\n".join(parts)


def headline(outcome: Outcome) -> str:
    """'wrong_answer: expected 3, got 4'; the verdict once when the feedback starts with it already."""
    verdict, feedback = str(outcome.verdict), outcome.feedback
    if not feedback or feedback.startswith(f"{verdict}:"):
        return feedback or verdict
    return f"{verdict}: {feedback}"
