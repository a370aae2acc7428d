"""What each reader sees of a test's result: one rule, read by every surface a student or staff reads.

A student sees a test's verdict, points and feedback, and a visible test's input, expected value and output;
a hidden test never shows its input, expected value or output (they would give the test away), and until the
course's rules release them a student's report leaves hidden tests out entirely. Staff see everything: a
hidden test's input (the call, the stdin), expected value, output and traceback included, on every staff
surface (`grader batch show`, the batch's staff pages, the server's staff pages and JSON, the analytics)."""

from __future__ import annotations

from dataclasses import replace

from grader.compat import StrEnum
from grader.model import Outcome, Report, StaffDetail
from grader.records import record


class Reader(StrEnum):
    """Who reads a result."""

    STUDENT = "student"  # their own report: a hidden test's details are never kept for them
    STAFF = "staff"  # a batch, staff pages: hidden tests' inputs, expected values and outputs kept


@record
class SeenTest:
    """One test's result as one reader sees it."""

    outcome: Outcome  # its verdict, points, feedback: what every reader sees
    input: str | None  # the call, given values or stdin
    expected: str | None
    actual: str | None  # the returned value or the printed output
    traceback: str


def seen_test(outcome: Outcome, detail: StaffDetail | None, reader: Reader) -> SeenTest:
    """The rule for one test. `detail`: the hidden test's staff details, when the reader has them."""
    if not outcome.hidden:
        return SeenTest(outcome, outcome.input, outcome.expected, outcome.actual, outcome.details)
    if reader is Reader.STAFF and detail is not None:
        return SeenTest(outcome, detail.input or None, detail.expected, detail.actual, detail.traceback)
    return SeenTest(outcome, None, None, None, "")


def seen_tests(report: Report, reader: Reader, details: tuple[StaffDetail, ...] | list[StaffDetail] | None = None,
               ) -> list[SeenTest]:
    """Every test of a report as `reader` sees it. `details`: the hidden tests' details when they are kept
    apart from the report (a batch's store); the report's own otherwise."""
    by_test = {d.test: d for d in (report.staff if details is None else details)}
    return [seen_test(outcome, by_test.get(outcome.test), reader) for outcome in report.outcomes]


def report_seen(report: Report, reader: Reader, hidden_released: bool = True) -> Report:
    """The report as `reader` may hold it: staff the whole of it; a student without the hidden tests'
    details and, until `hidden_released`, without the hidden tests (and the score made from the rest)."""
    if reader is Reader.STAFF:
        return report
    report = replace(report, staff=())
    if hidden_released or not any(o.hidden for o in report.outcomes):
        return report
    return replace(report, outcomes=tuple(o for o in report.outcomes if not o.hidden), visible_only=True)


def staff_detail_json(detail: StaffDetail) -> dict[str, object]:
    """A hidden test's details in staff JSON (the server's staff replies, the analytics' input)."""
    return {"test": detail.test, "input": detail.input, "expected": detail.expected, "actual": detail.actual,
            "traceback": detail.traceback}
