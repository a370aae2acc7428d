"""The live view of a batch: a progress bar (done / total, rate, ETA) and a running count of verdicts; in a
log (no terminal) a plain line every tenth of the way instead."""

from __future__ import annotations

import time
from collections import Counter
from types import TracebackType
from typing import Self

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn, TimeRemainingColumn
from rich.text import Text

from grader.model import Verdict
from grader.outputs.terminal import STYLE


def verdict_counts(counts: Counter[Verdict]) -> Text:
    """PASS 120  WRONG 31  TIMEOUT 2 ... in the terminal report's colours, worst verdicts last."""
    text = Text()
    for verdict in sorted(counts, key=lambda v: -v.severity):
        label, style = STYLE[verdict]
        text.append(f"{label} ", style=style).append(f"{counts[verdict]}  ")
    return text


class VerdictCounts(ProgressColumn):
    def render(self, task: Task) -> Text:
        return verdict_counts(task.fields["counts"])


class Rate(ProgressColumn):
    """Submissions graded per second in this run (results reused from the database do not count)."""

    def render(self, task: Task) -> Text:
        return Text(rate_text(task.completed - task.fields["reused"], time.monotonic() - task.fields["since"]),
                    style="cyan")


def rate_text(fresh: float, elapsed: float) -> str:
    return f"{fresh / elapsed:5.1f}/s" if elapsed > 0.5 and fresh else "  -- /s"


class BatchProgress:
    def __init__(self, console: Console, total: int, reused: int, counts: Counter[Verdict]) -> None:
        self.console, self.total, self.counts = console, total, counts
        self.live = console.is_terminal
        self.progress = Progress(TextColumn("[bold]grading"), BarColumn(bar_width=20), MofNCompleteColumn(), Rate(),
                                 TextColumn("ETA"), TimeRemainingColumn(), VerdictCounts(),
                                 console=console, refresh_per_second=4, disable=not self.live)
        self.task = self.progress.add_task("grading", total=total, completed=reused, counts=counts,
                                           reused=reused, since=time.monotonic())
        self.done, self.reused, self.since, self.logged = reused, reused, time.monotonic(), 0

    def __enter__(self) -> Self:
        self.progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.progress.stop()

    def advance(self, verdict: Verdict, submissions: int) -> None:
        self.counts[verdict] += submissions
        self.done += submissions
        self.progress.update(self.task, advance=submissions, counts=self.counts)
        tenth = self.done * 10 // max(self.total, 1)
        if not self.live and tenth > self.logged:
            self.logged = tenth
            line = Text(f"graded {self.done}/{self.total} "
                        f"{rate_text(self.done - self.reused, time.monotonic() - self.since).strip()}  ")
            self.console.print(line.append_text(verdict_counts(self.counts)), soft_wrap=True)
