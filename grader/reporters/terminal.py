"""The student's terminal report, drawn with rich; verdict colours live here and nowhere else."""

from __future__ import annotations

import re
from typing import TextIO

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from grader.model import Outcome, Report, Verdict

STYLE = {
    Verdict.PASSED: ("PASS", "bold green"),
    Verdict.WRONG_ANSWER: ("WRONG", "bold red"),
    Verdict.TIMEOUT: ("TIMEOUT", "bold magenta"),
    Verdict.MEMORY_LIMIT: ("MEMORY", "bold magenta"),
    Verdict.OUTPUT_LIMIT: ("OUTPUT", "bold magenta"),
    Verdict.RUNTIME_ERROR: ("ERROR", "bold red"),
    Verdict.SYNTAX_ERROR: ("SYNTAX", "bold red"),
    Verdict.RULE_VIOLATION: ("RULE", "bold yellow"),
    Verdict.SKIPPED: ("SKIPPED", "dim"),
    Verdict.GRADER_ERROR: ("GRADER", "bold white on red"),
    Verdict.MISSING: ("MISSING", "dim red"),
}
# C0/C1 controls, and the invisible or bidi characters that could reorder or hide what a teacher reads.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def escape_controls(text: str) -> str:
    # Lone surrogates (from a student's str) cannot be encoded for the terminal: show them as escapes too.
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return _CONTROL.sub(_escape_one, text)


def _escape_one(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def literal(text: str, style: str = "") -> Text:
    """Student text exactly as written: control characters made visible, rich markup never parsed."""
    return Text(escape_controls(text), style=style)


def verdict_text(verdict: Verdict) -> Text:
    label, style = STYLE[verdict]
    return Text(label, style=style)


def _time(outcome: Outcome) -> str:
    if outcome.verdict == Verdict.SKIPPED or outcome.limit_seconds == 0:
        return ""
    return f"{outcome.cpu_seconds:.2f} / {outcome.limit_seconds:.2f} s"


def _points(value: float) -> str:
    return f"{value:g}"


def tests_table(report: Report) -> Table:
    table = Table(show_edge=False, header_style="bold", pad_edge=False, expand=False)
    table.add_column("", justify="right", style="dim")
    table.add_column("test")
    table.add_column("verdict")
    table.add_column("CPU time", justify="right")
    table.add_column("points", justify="right")
    for number, outcome in enumerate(report.outcomes, start=1):
        name = literal(outcome.test)
        if outcome.hidden:
            name.append(" (hidden)", style="dim")
        if outcome.big:
            name.append(" (big)", style="dim")
        table.add_row(str(number), name, verdict_text(outcome.verdict), _time(outcome),
                      f"{_points(outcome.points)}/{_points(outcome.max_points)}")
    return table


def failure_panel(number: int, outcome: Outcome) -> Panel:
    parts: list[object] = []
    if outcome.feedback:
        parts.append(literal(outcome.feedback))
    if not outcome.hidden and outcome.verdict == Verdict.WRONG_ANSWER:
        if outcome.details and "\n" in outcome.details:
            parts.append(Text("difference (· is a space, → a tab):", style="dim"))
            parts.append(_diff(outcome.details))
        else:
            side = Table.grid(padding=(0, 2))
            side.add_column(style="green")
            side.add_column(style="red")
            side.add_row(Text("expected", style="bold"), Text("actual", style="bold"))
            side.add_row(literal(outcome.expected or ""), literal(outcome.actual or "(nothing)"))
            parts.append(side)
    elif not outcome.hidden and outcome.details:
        parts.append(literal(outcome.details))
    _, style = STYLE[outcome.verdict]
    title = Text(f"{number}. ")
    title.append(literal(outcome.test))
    return Panel(Group(*parts), title=title, title_align="left", border_style=style.replace("bold ", ""))


def _diff(details: str) -> Text:
    lines = []
    for line in details.splitlines():
        style = "green" if line.startswith("-") and not line.startswith("---") else (
            "red" if line.startswith("+") and not line.startswith("+++") else "dim")
        lines.append(literal(line, style))
    return Text("\n").join(lines)


def summary(report: Report) -> Text:
    failed = [o for o in report.outcomes if o.verdict != Verdict.PASSED]
    hidden_failed = sum(o.hidden for o in failed)
    text = Text(f"Score {_points(report.score)}/{_points(report.max_score)}. ", style="bold")
    if not failed and report.visible_only:
        text.append("All visible tests passed; the hidden tests run at grading time.", style="green")
    elif not failed:
        text.append(f"All {len(report.outcomes)} tests passed, hidden ones included.", style="bold green")
    else:
        counts = f"{len(failed)} of {len(report.outcomes)} tests did not pass"
        text.append(counts + (f" ({hidden_failed} of them hidden)." if hidden_failed else "."), style="bold red")
    return text


class TerminalReporter:
    def __init__(self, width: int | None = None, color: bool | None = None) -> None:
        self.width = width
        self.color = color

    def render(self, report: Report, out: TextIO) -> None:
        console = Console(file=out, width=self.width, highlight=False, emoji=False,
                          force_terminal=self.color, no_color=self.color is False)
        header = Text(report.exercise, style="bold")
        header.append(" · ")
        header.append_text(literal(report.submission))
        console.print(header)
        console.print(Text(report.isolation, style="dim"))
        console.print(tests_table(report))
        for number, outcome in enumerate(report.outcomes, start=1):
            if outcome.verdict not in (Verdict.PASSED, Verdict.SKIPPED):
                console.print(failure_panel(number, outcome))
        console.print(summary(report))
