"""The end of a batch in the terminal: what was graded, the score distribution, pass rate per test and the
slowest submissions."""

from __future__ import annotations

import statistics
from collections import Counter

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from grader.batch.gradebook import Gradebook, histogram, pass_rates
from grader.batch.progress import verdict_counts
from grader.model import Verdict
from grader.outputs.terminal import literal, verdict_text
from grader.outputs.text import points

SLOWEST = 5
BAR_WIDTH = 30


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
        table.add_row(bin.label, str(bin.count), Text("█" * round(bin.count / top * BAR_WIDTH), style="green"))
    return table


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


def summary(book: Gradebook) -> RenderableType:
    counts = Counter(cell.verdict for cell in book.cells.values())
    return Group(distribution(book), Text(), rates(book), Text(), slowest(book), Text(), verdict_line(counts))
