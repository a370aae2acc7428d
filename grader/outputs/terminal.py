"""The student's terminal report, drawn with rich; verdict colours live here and nowhere else. It says each
thing once: a problem of the whole file is one panel, hidden failures one line, each visible failure a
panel with its input and the place where expected and got first differ."""

from __future__ import annotations

import re
from collections import Counter
from typing import TextIO

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from grader.model import Outcome, Report, Verdict
from grader.quality.data import QualityResult
from grader.outputs import Output
from grader.text import NOTHING, cpu_time, escape_controls, points, shared_problem, whole_file_problem  # noqa: F401
from grader.words import count, plural

STYLE = {
    Verdict.PASSED: ("PASS", "bold green"),
    Verdict.WRONG_ANSWER: ("WRONG", "bold red"),
    Verdict.TIMEOUT: ("TIMEOUT", "bold magenta"),
    Verdict.MEMORY_LIMIT: ("MEMORY", "bold magenta"),
    Verdict.OUTPUT_LIMIT: ("OUTPUT", "bold magenta"),
    Verdict.RUNTIME_ERROR: ("ERROR", "bold red"),
    Verdict.SYNTAX_ERROR: ("SYNTAX", "bold red"),
    Verdict.RULE_VIOLATION: ("RULE", "bold yellow"),
    Verdict.SKIPPED: ("not run", "dim"),
    Verdict.GRADER_ERROR: ("GRADER", "bold white on red"),
    Verdict.MISSING: ("MISSING", "dim red"),
}
NOT_RUN = "not run"
# Expected and got in the class HTML's neutral colours, never green and red: neither side of a difference is
# "right", and red-green is the pair colour-blind readers tell apart least.
DIFF_STYLE = {"expected": "blue", "got": "dark_orange3", "same": "dim", "note": "dim italic", "caret": "bold"}
# The title of the one panel of a problem that stops the whole file.
WHOLE_FILE_TITLE = {
    Verdict.SYNTAX_ERROR: "The file does not parse: no test was run",
    Verdict.RULE_VIOLATION: "The file breaks a rule of the exercise: no test was run",
    Verdict.GRADER_ERROR: "The grader could not run the tests (not your fault)",
    Verdict.MISSING: "No file was handed in: no test was run",
}
LOADING_TITLE = "The file stopped while loading: no test was run"
LOADING = "while loading the file: "
ALL_HINT = re.compile(r"\s*\((grader check )?--all runs it( anyway)?\)$")


def literal(text: str, style: str = "") -> Text:
    """Student text exactly as written: control characters made visible, rich markup never parsed."""
    return Text(escape_controls(text), style=style)


def verdict_text(verdict: Verdict) -> Text:
    label, style = STYLE[verdict]
    return Text(label, style=style)


def skip_reason(outcome: Outcome) -> str:
    """'a smaller test failed first', from a skipped test's feedback; how to run it anyway is said once,
    below the table."""
    reason = outcome.feedback.removeprefix("skipped:").strip()
    return ALL_HINT.sub("", reason) or "skipped"


def tests_table(report: Report, stopped: Outcome | None) -> Table:
    table = Table(show_edge=False, header_style="bold", pad_edge=False, expand=False)
    table.add_column("", justify="right", style="dim")
    table.add_column("test")
    table.add_column("verdict")
    table.add_column("CPU time", justify="right")
    table.add_column("points", justify="right")
    skipped = any(o.verdict == Verdict.SKIPPED for o in report.outcomes)
    if skipped:
        table.add_column("why", style="dim", overflow="fold")
    for number, outcome in enumerate(report.outcomes, start=1):
        name = literal(outcome.test)
        if outcome.hidden:
            name.append(" (hidden)", style="dim")
        if outcome.big:
            name.append(" (big)", style="dim")
        if outcome.description:
            name.append(f": {escape_controls(outcome.description)}", style="dim")
        verdict = Text(NOT_RUN, style="dim") if stopped else verdict_text(outcome.verdict)
        row: list[RenderableType] = [str(number), name, verdict, "" if stopped else cpu_time(outcome),
                                     f"{points(outcome.points)}/{points(outcome.max_points)}"]
        if skipped:
            row.append(literal(skip_reason(outcome)) if outcome.verdict == Verdict.SKIPPED else "")
        table.add_row(*row)
    return table


def whole_file_panel(outcome: Outcome) -> Panel:
    title = WHOLE_FILE_TITLE.get(outcome.verdict, LOADING_TITLE)
    headline = outcome.feedback.removeprefix(LOADING)  # the title says so
    parts: list[RenderableType] = [literal(headline, "bold")]
    details = _without_headline(outcome.details, headline)
    if details:
        parts.append(literal(details))
    return Panel(Group(*parts), title=Text(title), title_align="left", border_style=_border(outcome.verdict))


def _without_headline(details: str, headline: str) -> str:
    """A traceback without its last line when that line is the headline, already printed above it."""
    lines = details.rstrip("\n").split("\n")
    if lines and lines[-1].strip() == headline.strip():
        lines.pop()
    return "\n".join(lines)


def failure_panel(number: int, outcome: Outcome, given: str | None) -> Panel:
    parts: list[RenderableType] = []
    if outcome.feedback:
        parts.append(literal(outcome.feedback, "bold"))
    if given is not None and given != outcome.test:  # a test named by its call shows it in its title
        parts.append(_given(given))
    details = _without_headline(outcome.details, outcome.feedback)
    if outcome.verdict == Verdict.WRONG_ANSWER:
        parts.append(_difference(outcome))
    elif details:
        parts.append(literal(details))
    parts += _captured(outcome)
    title = Text(f"{number}. ")
    title.append(literal(outcome.test))
    return Panel(Group(*parts), title=title, title_align="left", border_style=_border(outcome.verdict))


CAPTURED_LINES = 20  # lines of each stream a test's panel shows; the JSON report has the rest


def _captured(outcome: Outcome) -> list[RenderableType]:
    """What a visible test printed and wrote to stderr, under a label of its own."""
    parts: list[RenderableType] = []
    for label, text in (("printed", outcome.stdout), ("stderr", outcome.stderr)):
        if not text:
            continue
        lines = text.rstrip("\n").split("\n")
        if len(lines) > CAPTURED_LINES:
            lines = lines[:CAPTURED_LINES] + [f"... ({len(lines) - CAPTURED_LINES} more lines)"]
        parts.append(Text(f"{label}:", style="bold dim"))
        parts.append(Text("\n").join(literal("  " + line) for line in lines))
    return parts


def printed_panel(number: int, outcome: Outcome) -> Panel:
    """A passed visible test that printed: what it printed, as pytest shows captured output."""
    title = Text(f"{number}. ")
    title.append(literal(outcome.test))
    title.append(" printed", style="dim")
    return Panel(Group(*_captured(outcome)), title=title, title_align="left", border_style="dim")


def _border(verdict: Verdict) -> str:
    return STYLE[verdict][1].replace("bold ", "")


def _given(given: str) -> Text:
    """A visible test's input: the call, or what the program reads on stdin."""
    text = Text("input: ", style="bold")
    if given.endswith("\n"):  # stdin; a form's own input (steps, args and files) ends without one
        text.append("(what the program reads)\n", style="dim")
        text.append_text(Text("\n").join(literal("  " + line) for line in given.rstrip("\n").split("\n")))
    elif "\n" in given:
        text.append("\n")
        text.append_text(Text("\n").join(literal("  " + line) for line in given.split("\n")))
    else:
        text.append_text(literal(given))
    return text


def _difference(outcome: Outcome) -> RenderableType:
    expected, actual = outcome.expected or "", outcome.actual
    if outcome.details and not outcome.details.startswith("--- expected"):
        return _prediction(outcome)
    if actual is None:
        return literal(f"expected {expected}")
    text_compare = bool(outcome.details)  # the output checker's diff; a value's check has none
    from grader.outputs.difference import output_difference, value_difference  # a failure's, when shown

    rows = output_difference(expected, actual) if text_compare else value_difference(expected, actual or NOTHING)
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for row in rows:
        shown = Text(row.text, style=DIFF_STYLE[row.kind])  # already escaped: not literal() again
        if row.mark is not None:
            shown.stylize("reverse", row.mark, row.mark + 1)
        grid.add_row(Text(row.label, style="bold" if row.kind in ("expected", "got") else "dim"), shown)
    caption = "· is a space, → a tab; " if text_compare else ""
    return Group(Text(caption + "^ marks the first difference", style="dim"), grid)


def _prediction(outcome: Outcome) -> RenderableType:
    """A predict answer: each line marked right or wrong, a hint, the answer once it is shown."""
    parts: list[RenderableType] = []
    for line in outcome.details.split("\n"):
        if line.startswith("hint: "):
            parts.append(Text.assemble(("hint: ", "bold yellow"), literal(line.removeprefix("hint: "))))
        else:
            parts.append(literal(line, "green" if line.startswith("✓") else "red"))
    if outcome.expected is not None:
        parts.append(Text("The answer:", style="bold"))
        parts.append(Text("\n").join(literal("  " + line) for line in outcome.expected.rstrip("\n").split("\n")))
    return Group(*parts)


def hidden_summary(report: Report) -> Text | None:
    """'3 hidden tests did not pass: wrong answer (2); IndexError', most common first; None when none failed.
    A kind is the test's own feedback or its verdict; each reads as one phrase, its final stop dropped."""
    kinds = Counter((o.feedback or str(o.verdict).replace("_", " ")).strip().rstrip(".") for o in report.outcomes
                    if o.hidden and o.verdict not in (Verdict.PASSED, Verdict.SKIPPED))
    if not kinds:
        return None
    total = sum(kinds.values())
    parts = [kind + (f" ({n})" if n > 1 else "") for kind, n in kinds.most_common()]
    return literal(f"{count(total, 'hidden test')} did not pass: " + "; ".join(parts), "red")


def score_text(report: Report) -> Text:
    """'Score 7.65/9. ', with what code quality took when it took something."""
    off = report.quality.deduction if report.quality else 0.0
    took = f" ({points(report.tests_score)} from the tests, {points(off)} off for code quality)" if off else ""
    return Text(f"Score {points(report.score)}/{points(report.max_score)}{took}. ", style="bold")


def summary(report: Report) -> Text:
    total = len(report.outcomes)
    not_run = sum(o.verdict == Verdict.SKIPPED for o in report.outcomes)
    failed = [o for o in report.outcomes if o.verdict not in (Verdict.PASSED, Verdict.SKIPPED)]
    hidden = sum(o.hidden for o in report.outcomes)
    text = score_text(report)
    if not failed and not not_run:
        if report.visible_only:
            text.append("All visible tests passed; the hidden tests run at grading time.", style="green")
        elif total == 1:
            text.append("The test passed.", style="bold green")
        elif hidden:
            text.append(f"All {total} tests passed, the {hidden} hidden {plural('one', hidden)} included.",
                        style="bold green")
        else:
            text.append(f"All {total} tests passed.", style="bold green")
        return text
    if total == 1:
        text.append("The test did not pass." if failed else "The test was not run.", style="bold red")
        return text
    parts = []
    if failed:
        hidden_failed = sum(o.hidden for o in failed)
        parts.append(f"{len(failed)} of {count(total, 'test')} did not pass"
                     + (f" ({hidden_failed} of them hidden)" if hidden_failed else ""))
    if not_run:
        parts.append(f"{count(not_run, 'test')} {plural('was', not_run)} not run")
    text.append("; ".join(parts) + ".", style="bold red")
    return text


def stopped_summary(report: Report) -> Text:
    total = len(report.outcomes)
    text = score_text(report)
    text.append(f"None of the {count(total, 'test')} could run: fix the problem above first."
                if total != 1 else "The test could not run: fix the problem above first.", style="bold red")
    return text


def quality_panel(quality: QualityResult) -> Panel:
    """The spec's `quality:`: each category's count and points, then each issue on its line."""
    from grader.quality import shown

    parts: list[RenderableType] = [Text(shown.category_line(part)) for part in quality.categories]
    parts += [Text(shown.issue_line(issue), style="dim" if issue.in_starter else "") for issue in quality.issues]
    for extra in (shown.unlisted_line(quality), quality.note):
        if extra:
            parts.append(Text(extra, style="dim"))
    border = "yellow" if quality.deduction else "dim"
    return Panel(Group(*parts), title=Text(shown.headline(quality)), title_align="left", border_style=border)


class TerminalReport(Output):
    def __init__(self, width: int | None = None, color: bool | None = None) -> None:
        self.width = width
        self.color = color

    def render(self, report: Report, out: TextIO) -> None:
        console = Console(file=out, width=self.width, highlight=False, emoji=False,
                          force_terminal=self.color, no_color=self.color is False)
        header = literal(report.exercise, "bold")  # from a server's reply too: every text of a report is literal
        header.append(" · ")
        header.append_text(literal(report.submission))
        if report.variant:  # params: which student's variant it was graded against
            header.append(f" · variant {report.variant}", style="dim")
        console.print(header)
        console.print(literal(report.isolation, "dim"))
        if report.limits_source:
            console.print(literal(f"CPU limits: {report.limits_source}", "dim"))
        for note in report.notes:
            console.print(Text("note: ", style="bold yellow").append(literal(note)))
        stopped = whole_file_problem(report)
        if stopped is not None:
            console.print(whole_file_panel(stopped))
        console.print(tests_table(report, stopped))
        if any(ALL_HINT.search(o.feedback) for o in report.outcomes if o.verdict == Verdict.SKIPPED):
            console.print(Text("grader check --all runs the tests marked not run.", style="dim"))
        if stopped is not None:
            console.print(stopped_summary(report))
            return
        for number, outcome in enumerate(report.outcomes, start=1):
            if outcome.verdict not in (Verdict.PASSED, Verdict.SKIPPED) and not outcome.hidden:
                console.print(failure_panel(number, outcome, outcome.input))
            elif outcome.verdict == Verdict.PASSED and not outcome.hidden and (outcome.stdout or outcome.stderr):
                console.print(printed_panel(number, outcome))
        hidden = hidden_summary(report)
        if hidden is not None:
            console.print(hidden)
        if report.quality is not None:
            console.print(quality_panel(report.quality))
        console.print(summary(report))
