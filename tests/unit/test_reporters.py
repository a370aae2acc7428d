"""Outputs render the same Report; student text is always shown literally. A new output format is one class
plus one registry line, here from this file alone."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import TextIO

import pytest

from grader import cli
from grader.gradebook import Gradebook
from grader.model import Outcome, Report, Verdict
from grader.outputs import OUTPUTS, Entry, Output
from grader.outputs.files import write_atomic
from grader.outputs.json_report import JsonReport
from grader.outputs.terminal import TerminalReport
from grader.text import points
from tests.conftest import REFERENCE, ROOT

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
    assert "\\x1b[31m[bold·red]PASSED[/bold·red]" in text  # markup not interpreted, escapes visible


def test_terminal_summary_never_claims_success_while_a_hidden_test_failed() -> None:
    text = render_terminal(REPORT)
    assert "All" not in text.splitlines()[-1]
    assert "2 of 4 tests did not pass (1 of them hidden); 1 test was not run." in text


def test_terminal_report_shows_verdict_time_and_points_per_test() -> None:
    text = render_terminal(REPORT)
    assert "WRONG" in text and "not run" in text and "PASS" in text
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
    from grader.text import escape_controls

    assert escape_controls("abc\u202edef\u200b") == "abc\\u202edef\\u200b"


# ---------------------------------------------------------------- a new format: the recipe, done here
class ToyOutput(Output):
    """One line per test for a student; toy.txt, one line per student, for a class."""

    def render(self, report: Report, out: TextIO) -> None:
        for outcome in report.outcomes:
            out.write(f"toy {outcome.test}: {outcome.verdict} {points(outcome.points)}\n")

    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        lines = [f"{student} {points(book.total(student))}\n" for student in book.students]
        return [write_atomic(folder / "toy.txt", "".join(lines))]


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(OUTPUTS, "toy", Entry(f"{__name__}:ToyOutput", report=True, batch=True))


def test_a_registered_output_is_a_check_format(toy: None, capsys: pytest.CaptureFixture[str]) -> None:
    submission = REFERENCE / "count-queens" / "accepted" / "bitmask.py"
    assert cli.main(["check", "count-queens", str(submission), "--format", "toy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("toy ") and line.endswith(": passed 1") for line in lines)


def test_a_registered_output_is_a_batch_output(toy: None, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = cli.main(["batch", str(ROOT / "examples" / "class"), "--only", "count-queens", "--workers", "1",
                     "--out", str(out), "--outputs", "toy,csv"])
    assert code == 0
    with (out / "gradebook.csv").open(newline="") as gradebook:
        totals = [f"{row['student']} {row['total']}" for row in csv.DictReader(gradebook)]
    assert (out / "toy.txt").read_text().splitlines() == totals
