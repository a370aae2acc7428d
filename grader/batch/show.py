"""`grader batch show STUDENT [EXERCISE]`: what staff need for a regrade request, from the batch store:
each test's verdict and limit, and as staff read it (grader.readers) a failing test's input, its expected
value beside the output, and the traceback, hidden tests' included. Staff only: nothing here is ever
written where a student reads."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from grader.batch.store import Store
from grader.errors import UsageError
from grader.model import Outcome, StaffDetail
from grader.outputs.terminal import literal, verdict_text
from grader.readers import Reader, SeenTest, seen_test
from grader.text import NOTHING, escape_controls, points, shared_problem
from grader.records import record


@record
class Shown:
    student: str
    exercise: str
    file: str | None
    verdict: str
    score: float
    max_score: float
    notes: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    staff: dict[str, StaffDetail]


def gather(database: Path, student: str, exercise: str | None) -> list[Shown]:
    if not database.is_file():
        raise UsageError(f"no batch results at {database} (run grader batch first, or give its --out)")
    store = Store(database)
    try:
        rows = [r for r in store.submissions() if r.student == student and exercise in (None, r.exercise)]
        if not rows:
            students = sorted({r.student for r in store.submissions()})
            import difflib

            close = difflib.get_close_matches(student, students, n=1)
            # Both names may be a student's own text: a TA's terminal gets them escaped.
            what = f"student '{escape_controls(student)}'" + (
                f" and exercise '{escape_controls(exercise)}'" if exercise else "")
            hint = f" (did you mean '{escape_controls(close[0])}'?)" if close and close[0] != student else ""
            raise UsageError(f"no {what} in {database}{hint}")
        gradings = store.gradings()
        shown = []
        for row in rows:
            stored = gradings.get(row.key)
            if stored is None:
                continue  # not graded yet
            report = stored.report
            shown.append(Shown(row.student, row.exercise, row.file, str(stored.verdict), report.score,
                               report.max_score, report.notes, report.outcomes,
                               {d.test: d for d in store.staff_details(row.key)}))
        return shown
    finally:
        store.close()


def render(shown: list[Shown], console: Console) -> None:
    for item in shown:
        header = Text(f"{escape_controls(item.student)} · {item.exercise}", style="bold")
        header.append(f" ({escape_controls(item.file or 'no file')}): {points(item.score)}/{points(item.max_score)} "
                      f"{item.verdict}")
        console.print(header)
        for note in item.notes:
            console.print(Text("note: ", style="bold yellow").append(literal(note)))
        stopped = shared_problem(item.outcomes)
        if stopped is not None:  # the file never ran: one line, not one panel per test
            line = Text("  ").append_text(verdict_text(stopped.verdict))
            line.append_text(literal(f"  {stopped.feedback or 'no test was run'}"))
            console.print(line.append(f"  (all {len(item.outcomes)} tests)", style="dim"))
            if stopped.details:
                console.print(literal(stopped.details, "dim"))
        for number, outcome in enumerate(() if stopped else item.outcomes, start=1):
            console.print(_test(number, seen_test(outcome, item.staff.get(outcome.test), Reader.STAFF)))
        console.print()


def _test(number: int, seen: SeenTest) -> Panel | Text:
    outcome = seen.outcome
    title = Text(f"{number}. ").append(literal(outcome.test))
    if outcome.hidden:
        title.append(" (hidden)", style="dim")
    line = Text("  ").append_text(verdict_text(outcome.verdict))
    line.append(f"  {points(outcome.points)}/{points(outcome.max_points)}  CPU {outcome.cpu_seconds:.2f} / "
                f"{outcome.limit_seconds:.2f} s ({outcome.limit_source or 'source not recorded'})", style="dim")
    parts: list[object] = [line]
    failed = outcome.verdict != "passed"
    if outcome.feedback:
        parts.append(literal(outcome.feedback))
    if seen.input and failed:  # which call failed: a hidden test's too, for staff
        parts.append(Text("input: ", style="bold").append_text(literal(seen.input)))
    if failed and (seen.expected is not None or seen.actual is not None):
        side = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 2))
        side.add_column("expected", style="green", header_style="bold", overflow="fold")
        side.add_column("output", style="red", header_style="bold", overflow="fold")
        side.add_row(literal(seen.expected or ""), literal(seen.actual or NOTHING))
        parts.append(side)
    if seen.traceback and failed:
        parts.append(literal(seen.traceback, "dim"))
    return Panel(Group(*parts), title=title, title_align="left", border_style="dim")
