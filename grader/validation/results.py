"""What validating one exercise found: per reference, per timed test, and every reason it failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.calibration import Calibration
from grader.model import Exercise, Verdict
from grader.records import record


@record
class ReferenceCheck:
    """One reference file graded against the exercise, and whether that is the verdict its folder names."""

    path: Path
    expected: str  # the folder: "accepted", "wrong_answer", "timeout", ...
    got: Verdict | None  # the overall verdict at the grading limits; None when it could not be graded
    verdicts: tuple[Verdict, ...]  # per test, in the spec's order
    ok: bool
    reason: str = ""
    seconds: tuple[float, ...] = ()  # CPU time per test, in the spec's order


@record
class TimingRow:
    """A timed test: the slowest accepted reference, the limit, the fastest too-slow reference."""

    test: str
    limit: float
    limit_source: str  # "calibrated", "floor", "written", or "spec" when there is no calibration
    slowest_accepted: str = ""
    slowest_seconds: float | None = None
    too_slow: str = ""  # the fastest reference of timeout/ that times out on this test at the limit
    too_slow_seconds: float | None = None
    too_slow_stopped: bool = False  # stopped at 1.5 x the limit (x 1.2): the real time is longer
    ok: bool = True
    reason: str = ""

    @property
    def margin(self) -> float | None:
        """How many times the limit the fastest too-slow reference took (at least, when it was stopped)."""
        if self.too_slow_seconds is None or self.limit <= 0:
            return None
        return self.too_slow_seconds / self.limit


@dataclass
class ExerciseValidation:
    exercise: Exercise
    references: list[ReferenceCheck] = field(default_factory=list)
    timing: list[TimingRow] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # one line each: what is wrong and what to do
    notes: list[str] = field(default_factory=list)  # worth knowing, not a failure
    calibration: Calibration | None = None
    timing_error: str = ""  # why the time limits could not be set (then no row of `timing` was measured)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures

    def fail(self, reason: str) -> None:
        self.failures.append(reason)
