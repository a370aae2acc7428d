"""What `grader validate --mutants` shows: per exercise as text, as JSON (schemas/mutants.schema.json), as
the Markdown table of docs/validate.md, and as an HTML page (html/mutants.html, beside a batch's pages)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from grader.mutants.run import ExerciseMutants, MutantResult, Status

STATUSES = (Status.KILLED, Status.TIMED_OUT, Status.SURVIVED, Status.EQUIVALENT, Status.ERROR)
SCHEMA_VERSION = 1


def as_json(entries: Sequence[ExerciseMutants]) -> dict[str, object]:
    from grader.batch.plan import grader_version

    return {"schema_version": SCHEMA_VERSION, "grader": grader_version(), "ok": all(e.ok for e in entries),
            "exercises": [_exercise(e) for e in entries]}


def _exercise(entry: ExerciseMutants) -> dict[str, object]:
    hidden = {t.name for t in entry.exercise.tests if t.hidden}
    return {
        "id": entry.exercise.id, "kind": entry.exercise.kind, "skipped": entry.skipped or None,
        "made": entry.made, "graded": len(entry.results),
        **{status: entry.count(status) for status in STATUSES},
        "kill_rate": entry.kill_rate, "kill_at_least": entry.floor, "ok": entry.ok,
        "seconds": round(entry.seconds, 2), "notes": list(entry.notes),
        "tests": [{"name": name, "hidden": name in hidden, "killed": killed}
                  for name, killed in entry.killed_by_test().items()],
        "mutants": [_mutant(r, entry) for r in entry.results],
    }


def _mutant(result: MutantResult, entry: ExerciseMutants) -> dict[str, object]:
    mutant = result.mutant
    return {"id": mutant.id, "reference": mutant.reference, "rule": mutant.rule, "line": mutant.line,
            "what": mutant.what, "status": result.status, "killed_by": list(result.killed_by),
            "passed": list(result.passed), "hidden_only": result.hidden_only, "why": result.why,
            "diff": mutant.diff(entry.references[mutant.reference])}


def percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.0%}"


def summary_line(entry: ExerciseMutants) -> str:
    if entry.skipped:
        return f"{entry.exercise.id}: no mutants ({entry.skipped})"
    floor = f" (at least {percent(entry.floor)})" if entry.floor is not None else ""
    return (f"{entry.exercise.id}: {len(entry.results)} of {entry.made} mutants graded: "
            f"{entry.count(Status.KILLED)} killed, {entry.count(Status.TIMED_OUT)} timed out, "
            f"{entry.count(Status.SURVIVED)} survived, {entry.count(Status.EQUIVALENT)} equivalent"
            + (f", {entry.count(Status.ERROR)} not graded" if entry.count(Status.ERROR) else "")
            + f"; kill rate {percent(entry.kill_rate)}{floor}")


def render_text(entries: Sequence[ExerciseMutants], out: TextIO) -> None:
    for entry in entries:
        mark = "✓" if entry.ok else "✗"
        out.write(f"\n{mark} {summary_line(entry)}\n")
        if entry.skipped:
            continue
        if not entry.ok:
            out.write(f"  the kill rate {percent(entry.kill_rate)} is below the spec's mutants.kill_at_least "
                      f"{percent(entry.floor)}\n")
        hidden = {t.name for t in entry.exercise.tests if t.hidden}
        out.write("  mutants each test killed:\n")
        for name, killed in entry.killed_by_test().items():
            out.write(f"    {len(killed):4d}  {name}{' (hidden)' if name in hidden else ''}\n")
        for result in entry.results:
            if result.status == Status.SURVIVED:
                out.write(f"  survived: {result.mutant.id}: {result.mutant.what}\n")
                out.write(f"    passed every test: {', '.join(result.passed)}\n")
                if result.why:
                    out.write(f"    {result.why}\n")
                out.write("".join(f"      {line}" for line in result.mutant.diff(entry.references[result.mutant.reference])
                                  .splitlines(keepends=True)))
        for result in entry.results:
            if result.hidden_only and result.status in (Status.KILLED, Status.TIMED_OUT):
                out.write(f"  only hidden tests catch {result.mutant.id} ({result.mutant.what}): the visible tests "
                          f"alone would not catch it; students see this mistake only as a hidden failure\n")
        for result in entry.results:
            if result.status == Status.EQUIVALENT:
                out.write(f"  equivalent: {result.mutant.id}: {result.mutant.what}: {result.why}\n")
            elif result.status == Status.ERROR:
                out.write(f"  not graded: {result.mutant.id}: {result.why}\n")
        for note in entry.notes:
            out.write(f"  note: {note}\n")


def render_markdown(entries: Sequence[ExerciseMutants], out: TextIO) -> None:
    out.write("| exercise | mutants made | graded | killed | timed out | survived | equivalent | kill rate | floor |\n")
    out.write("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
    for entry in entries:
        if entry.skipped:
            out.write(f"| {entry.exercise.id} | - | - | - | - | - | - | - | {entry.skipped} |\n")
            continue
        out.write(f"| {entry.exercise.id} | {entry.made} | {len(entry.results)} | {entry.count(Status.KILLED)} | "
                  f"{entry.count(Status.TIMED_OUT)} | {entry.count(Status.SURVIVED)} | "
                  f"{entry.count(Status.EQUIVALENT)} | {percent(entry.kill_rate)} | {percent(entry.floor)} |\n")
    for status, heading in ((Status.SURVIVED, "Surviving mutants"), (Status.EQUIVALENT, "Equivalent mutants")):
        rows = [(e, r) for e in entries for r in e.results if r.status == status]
        if rows:
            out.write(f"\n{heading}:\n\n")
            out.writelines(f"- {e.exercise.id} `{r.mutant.id}`: {r.mutant.what}; {r.why or 'no probe'}\n"
                           for e, r in rows)


def write_html(entries: Sequence[ExerciseMutants], folder: Path) -> Path:
    """html/mutants.html in `folder`: a batch's --out folder keeps it beside the class's pages."""
    from grader.outputs.files import write_atomic
    from grader.outputs.html import environment

    (folder / "html").mkdir(parents=True, exist_ok=True)
    page = environment().get_template("mutants.html.j2").render(
        data=as_json(entries), summaries={e.exercise.id: summary_line(e) for e in entries}, percent=percent)
    return write_atomic(folder / "html" / "mutants.html", page)
