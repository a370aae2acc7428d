"""A batch's results.sqlite as hand-ins for the analytics: each student's graded file of each exercise, its
report as `grader check --format json` writes it, with the hidden tests' staff details beside it as the
server's staff view adds them. A batch holds one hand-in per student and exercise, with no time."""

from __future__ import annotations

from pathlib import Path

from grader.analytics.handins import Handin
from grader.errors import UsageError

STORE = "results.sqlite"  # what `grader batch --out DIR` writes in DIR


def store_path(source: Path) -> Path:
    """The store a results folder holds, or the store itself."""
    path = source / STORE if source.is_dir() else source
    if not path.is_file():
        raise UsageError(f"no batch results at {path} (run grader batch first, or give its --out folder)")
    if not _is_store(path):
        raise UsageError(f"{path} is not a batch's results.sqlite")
    return path


def _is_store(path: Path) -> bool:
    """Looked at read-only: opening a store creates its tables, which must not happen to another file."""
    import sqlite3

    with path.open("rb") as file:
        if file.read(16) != b"SQLite format 3\x00":
            return False
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return False
    return {"submissions", "gradings", "outcomes"} <= tables


def from_store(source: Path) -> list[Handin]:
    import sqlite3

    from grader.analytics.reports import staff_report
    from grader.batch.store import Store
    from grader.text import escape_controls

    path = store_path(source)
    try:
        store = Store(path)
    except sqlite3.DatabaseError as error:
        raise UsageError(f"{path} cannot be read as a batch's results: {error}") from None
    try:
        try:
            gradings = store.gradings()
            staff = store.every_staff_detail()
        except (sqlite3.DatabaseError, ValueError) as error:  # a store edited by hand: a verdict we do not know
            raise UsageError(f"{path} cannot be read as a batch's results: {escape_controls(str(error))[:200]}") from None
        handins = []
        for row in store.submissions():
            grading = gradings.get(row.key)
            if row.file is None or grading is None:
                continue  # not handed in, or not graded yet
            report = staff_report(grading.report, staff.get(row.key, ()))
            handins.append(Handin(row.student, row.exercise, None, report, row.file))
        return handins
    finally:
        store.close()
