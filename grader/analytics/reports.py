"""A report as the analytics read it: the JSON `grader check --format json` writes, with the hidden tests'
staff details beside it, as the server's staff view shows them. The batch's adapter makes it so, and the
server can hand over its stored reports the same way."""

from __future__ import annotations

from collections.abc import Iterable

from grader.model import Report, StaffDetail
from grader.outputs.json_report import as_json
from grader.readers import staff_detail_json


def staff_report(report: Report, staff: Iterable[StaffDetail] | None = None) -> dict[str, object]:
    """`staff`: the hidden tests' details when they are kept apart from the report (a batch's store keeps
    them in a table of their own); the report's own otherwise (the server's pickled reports carry them)."""
    shown = as_json(report)
    shown["staff_details"] = [staff_detail_json(d) for d in (report.staff if staff is None else staff)]
    return shown
