"""What staff need to answer a regrade request on a hidden test: its input (the call, the stdin), what it
expected, what the submission returned or printed, and its traceback. Kept in the batch store for `grader batch show` and the staff
pages; no output a student receives ever renders it."""

from __future__ import annotations

from grader.checkers import show
from grader.forms import form_of
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
        # As a visible test's report would show them: the form knows what its answer is (a program's
        # output beside its files, a step's values), never the text of an internal object.
        wanted, got = form_of(test).shown(test, result, expected[test.name])
        wanted = wanted if wanted is not None else ""
        got = got if got is not None else (show(result.value, SHOWN_CHARACTERS) if result.has_value
                                           else result.stdout)
        details.append(StaffDetail(test.name, wanted[:SHOWN_CHARACTERS], got[:SHOWN_CHARACTERS],
                                   result.traceback or (result.stderr[-2000:] if result.exit_code else ""),
                                   form_of(test).shown_input(test)[:SHOWN_CHARACTERS]))
    return tuple(details)
