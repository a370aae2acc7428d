"""One sanitiser (grader.text.escape_controls) for every text a submission or a server puts before a terminal:
C0 and C1 controls, ESC and so every CSI and OSC sequence, and bidi overrides are shown as escapes in the
terminal report, whichever field carries them; the JSON report keeps them exact."""

from __future__ import annotations

import io
import json

import pytest

from grader.model import Outcome, Report, Verdict
from grader.outputs import output
from grader.text import escape_controls

ESCAPES = "\x1b]8;;file:///etc\x1b\\link\x1b]8;;\x1b\\\x1b[2J\x1b]0;title\x07\x9b31m\u202eevil\u2066\r\x08\x00"
FORBIDDEN = set("\x1b\x07\x9b\u202e\u2066\r\x08\x00")


def everywhere() -> Report:
    """A report whose every text field carries escape sequences, as a server's reply or a submission can."""
    def outcome(name: str, verdict: Verdict, hidden: bool = False) -> Outcome:
        return Outcome(test=f"{name}{ESCAPES}", verdict=verdict, points=0, max_points=1, hidden=hidden,
                       feedback=f"feedback{ESCAPES}", details=f"details{ESCAPES}", expected=f"3{ESCAPES}",
                       actual=f"4{ESCAPES}", description=f"about{ESCAPES}", limit_source=f"limit{ESCAPES}",
                       input=f"add(1, 2){ESCAPES}", stdout=f"printed{ESCAPES}\n", stderr=f"warned{ESCAPES}\n")
    outcomes = (outcome("wrong", Verdict.WRONG_ANSWER), outcome("crash", Verdict.RUNTIME_ERROR),
                outcome("passed", Verdict.PASSED), outcome("hidden", Verdict.RUNTIME_ERROR, hidden=True),
                outcome("skipped", Verdict.SKIPPED))
    return Report(f"add{ESCAPES}", f"alice/add.py{ESCAPES}", outcomes, f"sandboxed{ESCAPES}", False,
                  (f"note{ESCAPES}",))


def test_the_sanitiser_escapes_controls_and_leaves_printable_text_as_it_is() -> None:
    shown = escape_controls(ESCAPES)
    assert not FORBIDDEN & set(shown) and shown.startswith("\\x1b]8;;file:///etc")
    assert "\\u202e" in shown and "\\x9b" in shown  # a bidi override and a C1 CSI, as escapes
    for text in ("plain text\twith a tab\nand a line", "é 中 🙂"):
        assert escape_controls(text) == text


def test_no_escape_sequence_of_any_field_reaches_the_terminal_report() -> None:
    out = io.StringIO()
    output("terminal").render(everywhere(), out)
    shown = out.getvalue()
    assert not FORBIDDEN & set(shown), [c for c in shown if c in FORBIDDEN]
    for word in ("add", "alice/add.py", "sandboxed", "note", "wrong", "feedback", "printed", "warned", "about"):
        assert f"{word}\\x1b" in shown.replace("\n", ""), word


def test_the_json_report_keeps_every_text_exact() -> None:
    out = io.StringIO()
    output("json").render(everywhere(), out)
    assert "\x1b" not in out.getvalue()  # written as \u001b
    report = json.loads(out.getvalue())
    assert report["exercise"] == f"add{ESCAPES}" and report["tests"][0]["name"] == f"wrong{ESCAPES}"
    assert report["tests"][0]["stdout"] == f"printed{ESCAPES}\n"
