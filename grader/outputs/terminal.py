"""The student's terminal report, drawn with rich; verdict colours live here and nowhere else."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from grader.model import Outcome, Report, Verdict
from grader.outputs import Output
from grader.outputs.text import DIFF_CAPTION, NOTHING, body_form, cpu_time, diff_lines, escape_controls, points

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
DIFF_STYLE = {"del": "green", "add": "red", "": "dim"}


def literal(text: str, style: str = "") -> Text:
    """Student text exactly as written: control characters made visible, rich markup never parsed."""
    return Text(escape_controls(text), style=style)


def verdict_text(verdict: Verdict) -> Text:
    label, style = STYLE[verdict]
    return Text(label, style=style)


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
        if outcome.description:
            name.append(f": {escape_controls(outcome.description)}", style="dim")
        table.add_row(str(number), name, verdict_text(outcome.verdict), cpu_time(outcome),
                      f"{points(outcome.points)}/{points(outcome.max_points)}")
    return table


def failure_panel(number: int, outcome: Outcome) -> Panel:
    parts: list[object] = []
    if outcome.feedback:
        parts.append(literal(outcome.feedback))
    form = body_form(outcome)
    if form == "diff":
        parts.append(Text(DIFF_CAPTION, style="dim"))
        parts.append(_diff(outcome.details))
    elif form == "side":
        side = Table.grid(padding=(0, 2))
        side.add_column(style="green")
        side.add_column(style="red")
        side.add_row(Text("expected", style="bold"), Text("actual", style="bold"))
        side.add_row(literal(outcome.expected or ""), literal(outcome.actual or NOTHING))
        parts.append(side)
    elif form == "details":
        parts.append(literal(outcome.details))
    _, style = STYLE[outcome.verdict]
    title = Text(f"{number}. ")
    title.append(literal(outcome.test))
    return Panel(Group(*parts), title=title, title_align="left", border_style=style.replace("bold ", ""))


def _diff(details: str) -> Text:
    return Text("\n").join(literal(line, DIFF_STYLE[part]) for part, line in diff_lines(details))


def summary(report: Report) -> Text:
    failed = [o for o in report.outcomes if o.verdict != Verdict.PASSED]
    hidden_failed = sum(o.hidden for o in failed)
    text = Text(f"Score {points(report.score)}/{points(report.max_score)}. ", style="bold")
    if not failed and report.visible_only:
        text.append("All visible tests passed; the hidden tests run at grading time.", style="green")
    elif not failed:
        text.append(f"All {len(report.outcomes)} tests passed, hidden ones included.", style="bold green")
    else:
        counts = f"{len(failed)} of {len(report.outcomes)} tests did not pass"
        text.append(counts + (f" ({hidden_failed} of them hidden)." if hidden_failed else "."), style="bold red")
    return text


class TerminalReport(Output):
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
