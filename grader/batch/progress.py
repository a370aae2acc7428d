"""The live view of a batch: one line (bar, done / total, rate, elapsed time, ETA, a running count of
verdicts) fitted to the terminal's width, so that it never wraps; in a log (no terminal) a plain line every
tenth of the way instead.

The ETA is the remaining submissions at the rate of this run so far (results reused from the database do not
count), worked out again at every refresh from the current time: while slow jobs (timeouts) run and nothing
finishes, the rate falls and the ETA grows, where a rate sampled only when a result arrives would stand still.
Before the first result of this run there is no rate, and the line says `ETA unknown`."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from types import TracebackType
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions
from rich.live import Live
from rich.text import Text

from grader.model import Verdict
from grader.outputs.terminal import STYLE
from grader.records import record

if TYPE_CHECKING:
    from typing import Self

BAR_WIDTHS = (20, 10)  # the bar shrinks before anything else goes
GAP = "  "


def verdict_counts(counts: Counter[Verdict]) -> Text:
    """PASS 120  WRONG 31  TIMEOUT 2 ... in the terminal report's colours, worst verdicts last."""
    text = Text()
    for verdict in sorted(counts, key=lambda v: -v.severity):
        label, style = STYLE[verdict]
        text.append(f"{label} ", style=style).append(f"{counts[verdict]}  ")
    return text


def rate_text(fresh: float, elapsed: float) -> str:
    return f"{fresh / elapsed:5.1f}/s" if elapsed > 0.5 and fresh else "  -- /s"


def clock(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


@record
class Snapshot:
    """The state of a batch at one moment, all the progress line is made of."""

    total: int
    done: int  # in the database, reused or graded now
    reused: int  # already in the database when this run started
    counts: Counter[Verdict]
    elapsed: float  # seconds since this run started

    @property
    def fresh(self) -> int:
        return self.done - self.reused

    def eta(self) -> str:
        remaining = self.total - self.done
        if remaining <= 0:
            return "done"
        if self.fresh <= 0:
            return "ETA unknown"
        return f"ETA {clock(remaining * self.elapsed / self.fresh)}"


def progress_line(state: Snapshot, width: int) -> Text:
    """The line at this width: the richest layout that fits whole, else the narrowest one with its verdict
    counts summed up, or none; never wider than `width`."""
    counts = verdict_counts(state.counts)
    counts.rstrip()
    passed = state.counts.get(Verdict.PASSED, 0)
    others = sum(state.counts.values()) - passed
    short = Text.assemble(("PASS ", STYLE[Verdict.PASSED][1]), str(passed),
                          *((GAP, ("OTHER ", "bold red"), str(others)) if others else ()))
    *barred, bare = _heads(state)
    # The bar goes only when even the summed-up counts leave no room for it.
    for head, tail in [(h, counts) for h in barred] + [(h, short) for h in barred] + [(bare, counts), (bare, short)]:
        if head.cell_len + len(GAP) + tail.cell_len <= width:
            return Text.assemble(head, GAP, tail)
    line = bare.copy()
    line.truncate(width, overflow="ellipsis")
    return line


def _heads(state: Snapshot) -> Iterator[Text]:
    """The part before the verdict counts, from the fullest to the barest."""
    digits = len(str(state.total))
    count = Text(f"{state.done:>{digits}}/{state.total}")
    rate = Text(rate_text(state.fresh, state.elapsed).strip(), style="cyan")
    timing = Text(f"{clock(state.elapsed)} {state.eta()}")
    spelled = Text(f"{clock(state.elapsed)} elapsed, {state.eta()}")
    if state.done >= state.total:
        timing = spelled = Text(f"done in {clock(state.elapsed)}")
    label = Text("grading", style="bold")
    for bar_width in BAR_WIDTHS:
        yield _join(label, _bar(state, bar_width), count, rate, spelled)
    yield _join(_bar(state, BAR_WIDTHS[-1]), count, rate, timing)
    yield _join(_bar(state, BAR_WIDTHS[-1]), count, timing)
    yield _join(count, timing)


def _join(*parts: Text) -> Text:
    return Text(" ").join(parts)


def _bar(state: Snapshot, width: int) -> Text:
    filled = round(width * state.done / state.total) if state.total else width
    return Text.assemble(("━" * filled, "green" if state.done >= state.total else "magenta"),
                         ("━" * (width - filled), "grey23"))


class BatchProgress:
    def __init__(self, console: Console, total: int, reused: int, counts: Counter[Verdict]) -> None:
        self.console, self.total, self.counts = console, total, counts
        self.live = console.is_terminal
        self.done, self.reused, self.since, self.logged = reused, reused, time.monotonic(), 0
        self.lock = threading.Lock()  # the refresh thread reads the counts that advance() changes
        self.view = Live(self, console=console, refresh_per_second=4, transient=False) if self.live else None

    def snapshot(self) -> Snapshot:
        with self.lock:
            return Snapshot(self.total, self.done, self.reused, Counter(self.counts), time.monotonic() - self.since)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        line = progress_line(self.snapshot(), options.max_width)
        line.no_wrap = True
        yield line

    def __enter__(self) -> Self:
        if self.view is not None:
            self.view.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.view is not None:
            self.view.stop()

    def advance(self, verdict: Verdict, submissions: int) -> None:
        with self.lock:
            self.counts[verdict] += submissions
            self.done += submissions
        tenth = self.done * 10 // max(self.total, 1)
        if not self.live and tenth > self.logged:
            self.logged = tenth
            state = self.snapshot()
            timing = f"done in {clock(state.elapsed)}" if state.eta() == "done" else \
                f"{clock(state.elapsed)} elapsed, {state.eta()}"
            line = Text(f"graded {self.done}/{self.total} {rate_text(state.fresh, state.elapsed).strip()}  "
                        f"{timing}  ")
            self.console.print(line.append_text(verdict_counts(state.counts)), soft_wrap=True)
