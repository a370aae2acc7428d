"""The versioned JSON other tools read, fields fixed by contract and only ever extended: one student's report
(`grader check --format json`) and grades.json, the whole gradebook with each test as the report writes it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TextIO

from grader.model import Outcome, Report
from grader.outputs import Output

if TYPE_CHECKING:
    from pathlib import Path

    from grader.gradebook import Cell, Gradebook

VERSION = 1  # of the report, and of grades.json
FILE = "grades.json"


def test_entry(outcome: Outcome) -> dict[str, object]:
    entry: dict[str, object] = {
        "name": outcome.test,
        "hidden": outcome.hidden,
        "big": outcome.big,
        "verdict": str(outcome.verdict),
        "points": outcome.points,
        "max_points": outcome.max_points,
        "feedback": outcome.feedback,
        "cpu_seconds": round(outcome.cpu_seconds, 4),
        "limit_seconds": outcome.limit_seconds,
        "limit_source": outcome.limit_source,
    }
    if outcome.description:  # what the student reads of the test besides its name, hidden or not
        entry["description"] = outcome.description
    if not outcome.hidden:  # a hidden test never carries its input, expected value or the output
        entry.update(expected=outcome.expected, actual=outcome.actual, details=outcome.details)
        if outcome.input is not None:
            entry["input"] = outcome.input
        if outcome.stdout:  # what the test printed, when its printed output is not the answer
            entry["stdout"] = outcome.stdout
        if outcome.stderr:
            entry["stderr"] = outcome.stderr
    return entry


def as_json(report: Report) -> dict[str, object]:
    entry = {
        "version": VERSION,
        "exercise": report.exercise,
        "submission": report.submission,
        "verdict": str(report.verdict),
        "score": report.score,
        "max_score": report.max_score,
        "tests": [test_entry(o) for o in report.outcomes],
        "isolation": report.isolation,
        "visible_only": report.visible_only,
        "limits_source": report.limits_source,
        "notes": list(report.notes),
        **({"variant": report.variant} if report.variant else {}),  # params: the student's variant's id
    }
    if report.quality is not None:  # the spec's `quality:`: its deduction is already out of `score`
        from grader.quality.shown import quality_json

        entry["quality"] = quality_json(report.quality)
    return entry


def gradebook_json(book: Gradebook) -> dict[str, object]:
    return {
        "version": VERSION,
        "grader_version": book.grader_version,
        "max_total": book.max_total,
        "exercises": [{"id": e.id, "title": e.title, "kind": e.kind, "max_score": e.max_score, "tests": e.tests}
                      for e in book.exercises],
        "students": [{"student": student, "total": book.total(student),
                      "exercises": {cell.exercise: _cell(cell, book.solves.get((student, cell.exercise), ""))
                                    for cell in book.row(student) if cell}}
                     for student in book.students],
    }


def _cell(cell: Cell, solves: str = "") -> dict[str, object]:
    variant: dict[str, object] = {"variant": cell.report.variant} if cell.report.variant else {}
    if solves:  # the wrong-variant detector: it fails its own variant and passes this classmate's
        variant["solves_variant_of"] = solves
    entry = {
        **variant,
        "file": cell.file,
        "verdict": str(cell.verdict),
        "score": cell.score,
        "max_score": cell.report.max_score,
        "submission_hash": cell.submission_hash,
        "cpu_seconds": round(cell.cpu_seconds, 4),
        "tests": [test_entry(o) for o in cell.report.outcomes],
    }
    quality = cell.report.quality
    if quality is not None:  # which part came from where, as the server's gradebook says it
        from grader.quality.shown import quality_json

        entry["parts"] = {"tests": cell.report.tests_score, "quality": -cell.report.quality_taken or 0.0}
        entry["quality"] = quality_json(quality)
    return entry


class JsonReport(Output):
    # ensure_ascii, in both: escape sequences and odd bytes in student output stay inert \u escapes.
    def render(self, report: Report, out: TextIO) -> None:
        json.dump(as_json(report), out, indent=2, ensure_ascii=True)
        out.write("\n")

    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        from grader.outputs.files import write_atomic  # here: its shutil is of no use to a check

        # Compact, because json only encodes in C without indent: a class's file is large (`python -m
        # json.tool` indents it).
        text = json.dumps(gradebook_json(book), ensure_ascii=True, separators=(",", ":")) + "\n"
        return [write_atomic(folder / FILE, text)]
