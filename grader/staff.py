"""What staff need to answer a regrade request on a hidden test: what it expected, what the submission
returned or printed, and its traceback. Kept in the batch store for `grader batch show` and the staff
pages; no output a student receives ever renders it."""

from __future__ import annotations

from grader.checkers import show
from grader.model import RunResult, StaffDetail, Test

SHOWN_CHARACTERS = 4000


def staff_details(tests: tuple[Test, ...], results: dict[str, RunResult],
                  expected: dict[str, object]) -> tuple[StaffDetail, ...]:
    """One entry per hidden test that ran."""
    details = []
    for test in tests:
        result = results.get(test.name)
        if not test.hidden or result is None:
            continue
        if test.compare == "output":
            wanted, got = str(expected[test.name]), result.stdout
        else:
            wanted = show(expected[test.name], SHOWN_CHARACTERS)
            got = show(result.value, SHOWN_CHARACTERS) if result.has_value else result.stdout
        details.append(StaffDetail(test.name, wanted[:SHOWN_CHARACTERS], got[:SHOWN_CHARACTERS],
                                   result.traceback or (result.stderr[-2000:] if result.exit_code else "")))
    return tuple(details)
