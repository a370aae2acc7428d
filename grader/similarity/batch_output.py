"""similarity/ for `grader batch --outputs similarity`: the same report as `grader similar`, on the files the
batch graded. Unlike the other outputs it reads the files themselves, which the database does not hold."""

from __future__ import annotations

from pathlib import Path

from grader.batch.discover import ClassFolder, Found
from grader.gradebook import Gradebook
from grader.model import Exercise
from grader.outputs import Output
from grader.similarity import html
from grader.similarity.analysis import analyse


class SimilarityReport(Output):
    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        if book.submissions is None:
            raise ValueError("the similarity report needs the batch's class folder")
        return write(book, folder, submissions=book.submissions, exercises=list(book.specs))


def write(book: Gradebook, out: Path, *, submissions: Path, exercises: list[Exercise]) -> list[Path]:
    """`submissions` is the class folder the cells' files are relative to; `exercises` give the starters
    and the reference folders to subtract."""
    graded = {row.id for row in book.exercises}
    found = {key: Found(cell.student, cell.exercise, submissions / cell.file if cell.file else None)
             for key, cell in book.cells.items()}
    folder = ClassFolder(submissions, list(book.students), found)
    similarity = analyse(folder, [e for e in exercises if e.id in graded])
    similarity.wrong_variants = sorted((e, s, solver) for (s, e), solver in book.solves.items())
    return html.write(similarity, out)
