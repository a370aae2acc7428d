"""Reporters render the same Report; student text is always shown literally."""

from __future__ import annotations

import io
import json

from grader.model import Outcome, Report, Verdict
from grader.outputs.json_report import JsonReport
from grader.outputs.terminal import TerminalReport

HOSTILE = "\x1b[2J\x1b[31m[bold red]PASSED[/bold red] \udcff"

REPORT = Report(
    exercise="count-queens",
    submission="alice.py",
    outcomes=(
        Outcome("visible one", Verdict.WRONG_ANSWER, 0.0, 1.0, feedback="line 1 differs",
                details="--- expected\n+++ actual\n@@ -1 +1 @@\n-2·4\n+" + HOSTILE,
                expected="2 4", actual=HOSTILE, cpu_seconds=0.01, limit_seconds=2.0),
        Outcome("hidden one", Verdict.WRONG_ANSWER, 0.0, 1.0, hidden=True, feedback="wrong answer",
                cpu_seconds=0.01, limit_seconds=2.0),
        Outcome("big one", Verdict.SKIPPED, 0.0, 2.0, hidden=True, big=True, feedback="skipped", limit_seconds=2.0),
        Outcome("passing", Verdict.PASSED, 1.0, 1.0, expected="1", actual="1", limit_seconds=2.0),
    ),
    isolation="isolation: uid 61001, seccomp",
)


def render_terminal(report: Report) -> str:
    out = io.StringIO()
    TerminalReport(width=80, color=False).render(report, out)
    return out.getvalue()


def test_json_report_has_the_contract_fields_and_hides_hidden_tests() -> None:
    out = io.StringIO()
    JsonReport().render(REPORT, out)
    data = json.loads(out.getvalue())
    assert data["version"] == 1
    assert {"exercise", "submission", "verdict", "score", "max_score", "tests"} <= data.keys()
    assert (data["verdict"], data["score"], data["max_score"]) == ("wrong_answer", 1.0, 5.0)
    for entry in data["tests"]:
        assert {"name", "hidden", "big", "verdict", "points", "max_points", "feedback"} <= entry.keys()
    hidden = data["tests"][1]
    assert not {"expected", "actual", "details"} & hidden.keys()
    assert data["tests"][0]["actual"] == HOSTILE


def test_json_report_escapes_control_characters() -> None:
    out = io.StringIO()
    JsonReport().render(REPORT, out)
    assert "\x1b" not in out.getvalue() and "\\u001b" in out.getvalue()


def test_terminal_report_shows_student_output_literally() -> None:
    text = render_terminal(REPORT)
    assert "\x1b" not in text
    assert "\\x1b[31m[bold red]PASSED[/bold red]" in text  # markup not interpreted, escapes visible


def test_terminal_summary_never_claims_success_while_a_hidden_test_failed() -> None:
    text = render_terminal(REPORT)
    assert "All" not in text.splitlines()[-1]
    assert "3 of 4 tests did not pass (2 of them hidden)" in text


def test_terminal_report_shows_verdict_time_and_points_per_test() -> None:
    text = render_terminal(REPORT)
    assert "WRONG" in text and "SKIPPED" in text and "PASS" in text
    assert "0.01 / 2.00 s" in text and "0/2" in text
    assert "(hidden)" in text


def test_visible_only_summary_says_hidden_tests_run_later() -> None:
    bundle = Report("e", "s.py", (REPORT.outcomes[3],), visible_only=True)
    assert "hidden tests run at grading time" in render_terminal(bundle)


def test_terminal_report_survives_lone_surrogates_on_a_real_utf8_stream() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8")
    TerminalReport(width=80, color=False).render(REPORT, stream)
    stream.flush()
    assert b"\\udcff" in raw.getvalue()


def test_bidi_and_zero_width_characters_are_made_visible() -> None:
    from grader.outputs.text import escape_controls

    assert escape_controls("abc\u202edef\u200b") == "abc\\u202edef\\u200b"
