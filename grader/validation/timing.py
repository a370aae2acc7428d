"""Does each timed test's limit separate the accepted references from the too-slow ones, with a margin?

A correct submission as slow as the slowest accepted reference must stay well under the limit (a busy
machine adds to CPU time), and every too-slow reference that times out at the limit must still time out
at 1.5 x the limit. Rows are shown for the big tests and for any test a too-slow reference times out on.
"""

from __future__ import annotations

from dataclasses import replace

from grader.calibration import Calibration
from grader.model import Exercise
from grader.validation.references import ACCEPTED, TOO_SLOW_FACTOR, TooSlowRun
from grader.validation.results import ReferenceCheck, TimingRow

ACCEPTED_HEADROOM = 1.5  # the limit must be at least this many times the slowest accepted reference


def timing_rows(exercise: Exercise, calibration: Calibration | None, references: list[ReferenceCheck],
                too_slow: list[TooSlowRun]) -> list[TimingRow]:
    slow_tests = {run.test for run in too_slow}
    rows = []
    for index, test in enumerate(exercise.tests):
        if not (test.big or test.name in slow_tests):
            continue
        limit = test.limits.cpu
        timing = calibration.tests.get(test.name) if calibration else None
        seconds: float | None
        if timing is not None:
            slowest, seconds, source = timing.slowest_reference, timing.slowest_seconds, timing.source
        else:  # no calibration: what the accepted references used while they were graded
            graded = [(c.path.name, c.seconds[index]) for c in references
                      if c.expected == ACCEPTED and len(c.seconds) > index]
            slowest, seconds = max(graded, key=lambda pair: pair[1]) if graded else ("", None)
            source = "spec"
        runs = [run for run in too_slow if run.test == test.name]
        fastest = min(runs, key=lambda run: run.seconds) if runs else None
        row = TimingRow(test.name, limit, source, slowest, seconds,
                        too_slow=fastest.reference if fastest else "",
                        too_slow_seconds=fastest.seconds if fastest else None,
                        too_slow_stopped=bool(fastest and fastest.times_out_at_margin))
        reasons = []
        if seconds is not None and seconds * ACCEPTED_HEADROOM > limit:
            reasons.append(f"the slowest accepted reference ({slowest}) used {seconds:.2f} s of the {limit:.2f} s "
                           f"limit, less than {ACCEPTED_HEADROOM} x headroom: a correct submission could time out "
                           f"on a busy machine; raise the limit")
        for run in runs:
            if not run.times_out_at_margin:
                reasons.append(f"the limit separates nothing: {run.reference} took {run.seconds:.2f} s, over "
                               f"the {limit:.2f} s limit but under {TOO_SLOW_FACTOR} x the limit "
                               f"({TOO_SLOW_FACTOR * limit:.2f} s); lower the limit or make the test bigger")
        if reasons:
            row = replace(row, ok=False, reason="; ".join(reasons))
        rows.append(row)
    return rows

