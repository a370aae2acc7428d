"""The class grid of the staff's page: students × exercises, each cell the submission the gradebook counts
(score, verdict, late, override) and how many submissions the student made. Sorted and filtered by the
page's query (no script needed): `sort` (student, total or an exercise's id), `order` (asc, desc),
`exercise` (only its column), `verdict` (only the rows with it; `missing`: not handed in), `name` (a part of
the student's name, any case), `live=1` (reload every few seconds, as the queue moves). A value the grid does not know is ignored, never an error."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from grader.gradebook import Gradebook
from grader.model import Verdict
from grader.records import record

NAME_MOST = 200  # characters of a name filter: longer than any name, so a longer one matches nothing anyway
MISSING = str(Verdict.MISSING)


@record
class GridCell:
    exercise: str
    verdict: str  # `missing` when nothing was handed in (or nothing counts)
    score: float | None
    late: bool
    late_penalty: float
    override: dict[str, Any] | None  # score, reason, by, at
    graded_score: float | None  # before an override
    attempts: int  # the student's submissions of the exercise, graded or not
    submission: int | None  # the one that counts


@record
class GridRow:
    student: str
    cells: list[GridCell]
    total: float


@record
class Query:
    sort: str = "student"
    order: str = "asc"
    exercise: str = ""
    verdict: str = ""
    name: str = ""
    live: str = ""  # "1": the page reloads itself as the queue moves

    def link(self, **changed: str) -> str:
        """This query with `changed`, as a URL's query string (empty values left out)."""
        from urllib.parse import urlencode

        values = {**self.__dict__, **changed}
        return "?" + urlencode({k: v for k, v in values.items() if v and (k, v) not in DEFAULTS})


DEFAULTS = {("sort", "student"), ("order", "asc")}


@record
class Grid:
    exercises: list[str]  # the columns shown
    rows: list[GridRow]
    query: Query
    verdicts: list[str]  # the verdicts a filter may name
    ignored: list[str]  # the query's values the grid did not know, in words


def read_query(params: Mapping[str, str], exercises: list[str]) -> tuple[Query, list[str]]:
    """The page's query, each unknown value dropped (and said)."""
    ignored: list[str] = []

    def one(key: str, allowed: list[str] | None, default: str = "") -> str:
        value = params.get(key, default)
        if not isinstance(value, str) or value == default:
            return default
        if allowed is not None and value not in allowed:
            ignored.append(key)
            return default
        return value

    verdicts = [str(v) for v in Verdict]
    name = params.get("name", "")
    if len(name) > NAME_MOST:
        ignored.append("name")
        name = ""
    query = Query(one("sort", ["student", "total", *exercises], "student"), one("order", ["asc", "desc"], "asc"),
                  one("exercise", exercises), one("verdict", verdicts), name.strip(), one("live", ["1"]))
    return query, ignored


def class_grid(book: Gradebook, applied: list[dict[str, Any]], attempts: Counter[tuple[str, str]],
               late: Mapping[int, bool], query: Query, ignored: list[str]) -> Grid:
    """The grid of the gradebook `views.build_gradebook` made (its `applied`: what it applied per cell),
    `attempts` per (student, exercise), `late`: whether each counted submission came late."""
    ids = [e.id for e in book.exercises]
    shown = [query.exercise] if query.exercise else ids
    by_cell = {(str(a["student"]), str(a["exercise"])): a for a in applied}
    rows = []
    for student in book.students:
        cells = []
        for exercise in ids:
            cell, entry = book.cells.get((student, exercise)), by_cell.get((student, exercise))
            count = attempts.get((student, exercise), 0)
            if cell is None or entry is None:
                cells.append(GridCell(exercise, MISSING, None, False, 0.0, None, None, count, None))
                continue
            number = int(entry["submission"])
            cells.append(GridCell(exercise, str(cell.verdict), cell.score, late.get(number, False),
                                  float(entry["late_penalty"]), entry.get("override"), float(entry["graded_score"]),
                                  count, number))
        rows.append(GridRow(student, cells, sum(c.score or 0.0 for c in cells)))
    rows = [r for r in rows if _kept(r, shown, query)]
    descending = query.order == "desc"
    rows.sort(key=lambda r: r.student.casefold(), reverse=descending and query.sort == "student")
    if query.sort == "total":
        rows.sort(key=lambda r: r.total, reverse=descending)  # stable: equal totals stay in name order
    elif query.sort in ids:
        column = ids.index(query.sort)
        rows.sort(key=lambda r: -1.0 if r.cells[column].score is None else r.cells[column].score, reverse=descending)
    for row in rows:
        row.cells[:] = [c for c in row.cells if c.exercise in shown]
    return Grid(shown, rows, query, sorted({str(v) for v in Verdict}), ignored)


def _kept(row: GridRow, shown: list[str], query: Query) -> bool:
    if query.name and query.name.casefold() not in row.student.casefold():
        return False
    if query.verdict:
        return any(c.verdict == query.verdict for c in row.cells if c.exercise in shown)
    return True
