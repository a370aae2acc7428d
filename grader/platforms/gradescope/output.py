"""Gradescope's results.json (results.py, beside it, builds it): printed for one report (`grader
check --format gradescope`), or gradescope/<student>/results.json for each student of a batch."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TextIO

from grader.outputs import Output
from grader.platforms.gradescope.results import Graded, results

if TYPE_CHECKING:
    from pathlib import Path

    from grader.gradebook import Gradebook
    from grader.model import Report

FOLDER = "gradescope"


def student_results(book: Gradebook, student: str) -> dict[str, object]:
    graded = [Graded(cell.exercise, cell.file, cell.report, cell.wall_seconds)
              for cell in book.row(student) if cell is not None]
    return results(graded, {"grader_version": book.grader_version, "student": student})


class GradescopeResults(Output):
    def render(self, report: Report, out: TextIO) -> None:
        json.dump(results([Graded(report.exercise, report.submission, report)]), out, indent=2, ensure_ascii=True)
        out.write("\n")

    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        from grader.gradebook import file_names
        from grader.outputs.files import swapped_folder, write_atomic

        with swapped_folder(folder / FOLDER) as building:
            named = file_names(book.students)
            for student in book.students:
                own = building / named[student]
                own.mkdir()
                # Compact: json encodes in C only without indent, and 200 students add up.
                write_atomic(own / "results.json", json.dumps(student_results(book, student), ensure_ascii=True,
                                                              separators=(",", ":")))
        return [folder / FOLDER]
