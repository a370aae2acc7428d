"""grades.json: the whole gradebook, each test as `grader check --format json` writes it."""

from __future__ import annotations

import json
from pathlib import Path

from grader.batch.gradebook import Cell, Gradebook
from grader.batch.outputs.files import write_atomic
from grader.reporters.json_report import test_entry

FILE = "grades.json"
VERSION = 1


def as_json(book: Gradebook) -> dict[str, object]:
    return {
        "version": VERSION,
        "grader_version": book.grader_version,
        "max_total": book.max_total,
        "exercises": [{"id": e.id, "title": e.title, "kind": e.kind, "max_score": e.max_score, "tests": e.tests}
                      for e in book.exercises],
        "students": [{"student": student, "total": book.total(student),
                      "exercises": {cell.exercise: _cell(cell) for cell in book.row(student) if cell}}
                     for student in book.students],
    }


def _cell(cell: Cell) -> dict[str, object]:
    return {
        "file": cell.file,
        "verdict": str(cell.verdict),
        "score": cell.score,
        "max_score": cell.report.max_score,
        "submission_hash": cell.submission_hash,
        "cpu_seconds": round(cell.cpu_seconds, 4),
        "tests": [test_entry(o) for o in cell.report.outcomes],
    }


def write(book: Gradebook, out: Path) -> list[Path]:
    # ensure_ascii: escape sequences and odd bytes in student output stay inert \u escapes. Compact, because
    # json only encodes in C without indent: a class's file is large (`python -m json.tool` indents it).
    return [write_atomic(out / FILE, json.dumps(as_json(book), ensure_ascii=True, separators=(",", ":")) + "\n")]
