"""`grader validate` in the terminal: a table of references and one of time limits per exercise, then a
summary. Colours come from the student report's palette."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.calibration import Calibration
from grader.model import Verdict
from grader.outputs.terminal import STYLE, literal
from grader.validation.references import TOO_SLOW_FACTOR
from grader.validation.results import ExerciseValidation, TimingRow
from grader.words import count

LETTERS = {
    Verdict.PASSED: ".", Verdict.WRONG_ANSWER: "W", Verdict.TIMEOUT: "T", Verdict.RUNTIME_ERROR: "R",
    Verdict.MEMORY_LIMIT: "M", Verdict.OUTPUT_LIMIT: "O", Verdict.SYNTAX_ERROR: "S",
    Verdict.RULE_VIOLATION: "V", Verdict.SKIPPED: "-", Verdict.GRADER_ERROR: "G", Verdict.MISSING: "?",
}
LEGEND = "  ".join(f"{letter} {verdict}" for verdict, letter in LETTERS.items() if verdict != Verdict.MISSING)


def verdict_letters(verdicts: tuple[Verdict, ...]) -> Text:
    text = Text()
    for verdict in verdicts:
        text.append(LETTERS[verdict], style=STYLE[verdict][1] if verdict != Verdict.PASSED else "green")
    return text


def _verdict(verdict: Verdict | None) -> Text:
    if verdict is None:
        return Text("-", style="dim")
    return Text(str(verdict), style=STYLE[verdict][1])


def references_table(validation: ExerciseValidation) -> Table:
    table = Table(header_style="bold", show_edge=False, pad_edge=False)
    table.add_column("reference", no_wrap=True)
    table.add_column("expected", no_wrap=True)
    table.add_column("got", no_wrap=True)
    table.add_column("tests", no_wrap=True)
    table.add_column("reason", overflow="fold", ratio=1)
    for check in validation.references:
        table.add_row(literal(check.path.name), check.expected, _verdict(check.got), verdict_letters(check.verdicts),
                      literal(check.reason, "red") if not check.ok else Text("ok", style="green"))
    return table


def timing_table(rows: list[TimingRow], calibration: Calibration | None) -> Table:
    where = ("no calibration: the spec's limits" if calibration is None
             else "measured now" if calibration.fresh else f"calibrated {calibration.measured_at}")
    table = Table(header_style="bold", show_edge=False, pad_edge=False, title_justify="left", title_style="bold",
                  title=f"CPU time limits ({where})")
    for column in ("test", "slowest accepted", "limit", "fastest too-slow", "margin"):
        table.add_column(column, no_wrap=True)
    table.add_column("", overflow="fold", ratio=1)
    for row in rows:
        slowest = Text(f"{row.slowest_seconds:.2f} s" if row.slowest_seconds is not None else "-")
        slowest.append(f" {row.slowest_accepted}", style="dim")
        if row.too_slow_seconds is None:
            too_slow, margin = Text("none", style="dim"), Text("-", style="dim")
        else:
            at_least = "≥ " if row.too_slow_stopped else ""
            too_slow = Text(f"{at_least}{row.too_slow_seconds:.2f} s")
            too_slow.append(f" {row.too_slow.rsplit('/', 1)[-1]}", style="dim")
            margin = Text(f"{at_least}{row.margin:.1f}×", style="green" if row.ok else "red")
        status = Text("ok", style="green") if row.ok else literal(row.reason, "red")
        limit = Text(f"{row.limit:.2f} s")
        limit.append(f" {row.limit_source}", style="dim")
        table.add_row(literal(row.test), slowest, limit, too_slow, margin, status)
    table.caption = (f"limit = max(floor, multiplier × slowest accepted) unless the spec writes one; "
                     f"a too-slow reference must still time out at {TOO_SLOW_FACTOR} × the limit "
                     f"(≥: stopped there, never awaited)")
    table.caption_justify = "left"
    return table


def render_validation(validation: ExerciseValidation, console: Console) -> None:
    exercise = validation.exercise
    console.rule(literal(f"{exercise.id}: {exercise.title}", "bold"))
    if validation.references:
        console.print(references_table(validation))
    if validation.timing and validation.timing_error:
        console.print()
        console.print(Text("CPU time limits: not set (see below)", style="bold red"))
    elif validation.timing:
        console.print()
        console.print(timing_table(validation.timing, validation.calibration))
    for note in validation.notes:
        console.print(literal(f"note: {note}", "dim"), soft_wrap=True)
    for failure in validation.failures:
        console.print(literal(f"✗ {failure}", "red"), soft_wrap=True)  # one line each, for grep
    if validation.ok:
        console.print(Text(f"✓ {exercise.id} is valid ({validation.seconds:.1f} s)", style="bold green"))
    else:
        count = len(validation.failures)
        console.print(Text(f"✗ {exercise.id}: {count} failure{'s' if count != 1 else ''} "
                           f"({validation.seconds:.1f} s)", style="bold red"))
    console.print()


def render_summary(validations: list[ExerciseValidation], seconds: float, console: Console) -> None:
    table = Table(header_style="bold", title="grader validate", title_justify="left", title_style="bold")
    for column in ("exercise", "result", "references", "time limits", "time"):
        table.add_column(column)
    for validation in validations:
        good = sum(check.ok for check in validation.references)
        timed_ok = sum(row.ok for row in validation.timing)
        result = (Text("valid", style="bold green") if validation.ok
                  else Text(count(len(validation.failures), "failure"), style="bold red"))
        timing = ("not set" if validation.timing_error else f"{timed_ok}/{len(validation.timing)} ok"
                  if validation.timing else "-")
        table.add_row(validation.exercise.id, result, f"{good}/{len(validation.references)} as expected", timing,
                      f"{validation.seconds:.1f} s")
    console.print(table)
    console.print(Text(f"tests: {LEGEND}", style="dim"))
    failed = [v.exercise.id for v in validations if not v.ok]
    if failed:
        console.print(Text(f"✗ {len(failed)} of {count(len(validations), 'exercise')} failed: {', '.join(failed)} "
                           f"({seconds:.1f} s)", style="bold red"))
    else:
        console.print(Text(f"✓ every exercise is valid ({len(validations)} of {len(validations)}, {seconds:.1f} s)",
                           style="bold green"))


def calibration_table(calibration: Calibration, big: set[str]) -> Table:
    """`grader calibrate`: every test's limit and the runs it came from."""
    where = "measured now" if calibration.fresh else f"cached, measured {calibration.measured_at}"
    table = Table(header_style="bold", show_edge=False, pad_edge=False, title_justify="left", title_style="bold",
                  title=f"{calibration.exercise}: floor {calibration.settings.floor:g} s, multiplier "
                        f"{calibration.settings.multiplier:g} ({where})")
    for column in ("test", "slowest accepted", "runs (CPU s, per reference)", "limit"):
        table.add_column(column, overflow="fold")
    for timing in calibration.tests.values():
        runs = ", ".join(f"{name} {'/'.join(f'{s:.3f}' for s in samples)}" for name, samples in timing.samples.items())
        name = literal(timing.test)
        if timing.test in big:
            name.append(" (big)", style="dim")
        table.add_row(name, f"{timing.slowest_seconds:.3f} s {timing.slowest_reference}", Text(runs, style="dim"),
                      f"{timing.limit:.2f} s ({timing.source})")
    return table
