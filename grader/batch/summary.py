"""The end of a batch in the terminal: the score distribution, one row per exercise (pass rate, mean, the
commonest failure), the slowest submissions and the verdict counts; the pass rate per test only when asked
for (`--per-test`), since it has a row for every test of every exercise. Every table shrinks to the width."""

from __future__ import annotations

import statistics
from collections import Counter

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from grader.gradebook import Gradebook, histogram, pass_rates
from grader.batch.per_exercise import ExerciseSummary, exercise_summaries
from grader.batch.progress import verdict_counts
from grader.model import Verdict
from grader.outputs.terminal import literal, verdict_text
from grader.text import points

SLOWEST = 5
BAR_WIDTH = 30
ID_WIDTH = 20  # an exercise id longer than this may be cut on a narrow terminal


def verdict_line(counts: Counter[Verdict]) -> Text:
    return Text("verdicts: ", style="bold").append_text(verdict_counts(counts))


def distribution(book: Gradebook) -> Table:
    totals = [book.total(s) for s in book.students]
    caption = (f"mean {statistics.fmean(totals):.1f}, median {points(statistics.median(totals))} "
               f"of {points(book.max_total)}") if totals else ""
    table = Table(title="Score distribution", caption=caption, header_style="bold", show_edge=False)
    table.add_column("% of max", justify="right")
    table.add_column("students", justify="right")
    table.add_column("")
    bins = histogram(book)
    top = max((b.count for b in bins), default=0) or 1
    for bin in bins:
        table.add_row(bin.label, str(bin.count), Bar(bin.count / top))
    return table


class Bar:
    """A bar as long as its share of the room the table gives it (at most BAR_WIDTH): narrow terminals get
    shorter bars, in proportion, instead of bars that wrap."""

    def __init__(self, share: float) -> None:
        self.share = share

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, BAR_WIDTH)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("█" * round(self.share * min(options.max_width, BAR_WIDTH)), style="green", no_wrap=True)


def exercises(book: Gradebook) -> Table:
    rows = exercise_summaries(book)
    table = Table(title="Per exercise", caption="passed: every test; passed and mean: of those handed in",
                  header_style="bold", show_edge=False)
    # Exercise ids stay whole (a TA types them into --only); the failure column wraps first.
    table.add_column("exercise", min_width=min(max((len(r.id) for r in rows), default=0), ID_WIDTH))
    for column in ("handed in", "passed", "mean"):
        table.add_column(column, justify="right")
    table.add_column("commonest failure")
    for row in rows:
        table.add_row(row.id, f"{row.handed_in}/{row.students}",
                      f"{row.passed}/{row.handed_in} {row.pass_rate:.0%}" if row.handed_in else "-",
                      f"{row.mean:.1f}/{points(row.max_score)}" if row.mean is not None else "-", failure(row))
    return table


def failure(row: ExerciseSummary) -> Text:
    if row.failure is None:
        return Text("none", style="dim")
    text = verdict_text(row.failure.verdict).append(f" {row.failure.submissions}", style="")
    if row.failure.test is not None:
        text.append(" on ").append_text(literal(row.failure.test))
    failed = row.handed_in - row.passed
    if failed > row.failure.submissions:
        text.append(f" of {failed} failing", style="dim")
    return text


def rates(book: Gradebook) -> Table:
    table = Table(title="Pass rate per test (of those handed in)", header_style="bold", show_edge=False)
    for column, justify in (("exercise", "left"), ("test", "left"), ("passed", "right"), ("rate", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for rate in pass_rates(book):
        table.add_row(rate.exercise, literal(rate.test), f"{rate.passed}/{rate.handed_in}", f"{rate.rate:.0%}")
    return table


def slowest(book: Gradebook) -> Table:
    table = Table(title="Slowest submissions (CPU of the sandbox)", header_style="bold", show_edge=False)
    for column in ("student", "exercise", "verdict", "CPU s", "wall s"):
        table.add_column(column, justify="right" if column.endswith(" s") else "left")
    cells = sorted((c for c in book.cells.values() if c.file), key=lambda c: -c.cpu_seconds)[:SLOWEST]
    for cell in cells:
        table.add_row(literal(cell.student), cell.exercise, verdict_text(cell.verdict), f"{cell.cpu_seconds:.2f}",
                      f"{cell.wall_seconds:.2f}")
    return table


def wrong_variants(book: Gradebook) -> Table:
    table = Table(title="Wrong variant: fails its own variant, passes a classmate's", header_style="bold",
                  show_edge=False)
    for column in ("student", "exercise", "solves the variant of"):
        table.add_column(column)
    for (student, exercise), solver in sorted(book.solves.items()):
        table.add_row(literal(student), exercise, literal(solver))
    return table


def summary(book: Gradebook, per_test: bool = False) -> RenderableType:
    counts = Counter(cell.verdict for cell in book.cells.values())
    parts: list[RenderableType] = [distribution(book), Text(), exercises(book), Text()]
    if per_test:
        parts += [rates(book), Text()]
    if book.solves:
        parts += [wrong_variants(book), Text()]
    return Group(*parts, slowest(book), Text(), verdict_line(counts))
