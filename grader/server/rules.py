"""A course's rules for its server, from the `rules:` mapping of grader-course.yaml:

    rules:
      deadline: 2026-12-01T23:59:00Z      # when hand-ins stop being on time (no deadline: never late)
      late: {penalty: 10, per: day, cutoff: 2026-12-04T23:59:00Z}  # percent of the score per day (or hour)
                                          # started late; nothing is taken after the cut-off
      rate: {submissions: 5, per: 1h}     # per student and exercise, in any window of that length
      hidden: always                      # what hidden tests show a student: always, after-deadline, never
      counts: latest                      # which submission the gradebook takes: latest or best
      exercises:                          # any of the keys above, for one exercise
        add: {deadline: 2026-12-08T12:00:00Z, hidden: after-deadline}
      extensions:                         # a student's own deadline (the late policy moves with it)
        alice: {add: 2026-12-10T12:00:00Z}   # or "*" for every exercise

Staff are never rate-limited nor cut off. A mistake names the file and the key."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.records import record
from grader.server.exams_spec import ExamBook

HIDDEN = ("always", "after-deadline", "never")
COUNTS = ("latest", "best")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
PER = {"day": 86400, "hour": 3600}
_KEYS = ("deadline", "late", "rate", "hidden", "counts")


@record
class Late:
    penalty: float  # percent of the score taken per `per` started late
    per: str  # day or hour
    cutoff: float | None  # epoch seconds: nothing accepted after it


@record
class Rate:
    submissions: int
    window: float  # seconds


@record
class ExerciseRules:
    deadline: float | None = None  # epoch seconds
    late: Late | None = None
    rate: Rate | None = None
    hidden: str = "always"
    counts: str = "latest"


@record
class Lateness:
    late: bool
    seconds: float  # after the deadline in force
    penalty: float  # percent of the score taken, 0..100
    too_late: bool  # after the cut-off: not counted, not accepted
    deadline: float | None  # the student's own, extension included


@record
class CourseRules:
    default: ExerciseRules = ExerciseRules()
    exercises: dict[str, ExerciseRules] = field(default_factory=dict)
    extensions: dict[str, dict[str, float]] = field(default_factory=dict)  # student -> exercise or "*" -> time
    exams: ExamBook = field(default_factory=ExamBook)  # the course's exams/ (exams_spec.py): `grader serve` sets it

    def of(self, exercise: str) -> ExerciseRules:
        return self.exercises.get(exercise, self.default)

    def deadline_of(self, student: str, exercise: str) -> float | None:
        own = self.extensions.get(student, {})
        return own.get(exercise, own.get("*", self.of(exercise).deadline))

    def lateness(self, student: str, exercise: str, at: float) -> Lateness:
        rules, deadline = self.of(exercise), self.deadline_of(student, exercise)
        if deadline is None or at <= deadline:
            return Lateness(False, 0.0, 0.0, False, deadline)
        seconds = at - deadline
        late = rules.late
        if late is None:
            return Lateness(True, seconds, 0.0, False, deadline)
        cutoff = self.cutoff_of(student, exercise)
        too_late = cutoff is not None and at > cutoff
        units = math.ceil(seconds / PER[late.per])
        return Lateness(True, seconds, min(100.0, units * late.penalty), too_late, deadline)

    def cutoff_of(self, student: str, exercise: str) -> float | None:
        """After it nothing of this student's is taken: an extension moves the cut-off with the deadline."""
        rules, deadline = self.of(exercise), self.deadline_of(student, exercise)
        if rules.late is None or rules.late.cutoff is None:
            return None
        return rules.late.cutoff + (deadline - (rules.deadline or deadline) if deadline is not None else 0)

    def hidden_shown(self, student: str, exercise: str, now: float) -> bool:
        """Whether a student sees their hidden tests' verdicts now."""
        hidden = self.of(exercise).hidden
        if hidden == "after-deadline":
            deadline = self.deadline_of(student, exercise)
            return deadline is None or now > deadline
        return hidden == "always"


def load_rules(course_file: Path | None) -> CourseRules:
    if course_file is None or not course_file.is_file():
        return CourseRules()
    import yaml

    try:
        settings = yaml.safe_load(course_file.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as error:
        raise UsageError(f"{course_file}: cannot read the course file: {error}") from None
    raw = settings.get("rules", {}) if isinstance(settings, dict) else None
    where = _Where(course_file)
    if raw is None:
        return CourseRules()
    where.mapping(raw, "rules")
    unknown = set(raw) - {*_KEYS, "exercises", "extensions"}
    if unknown:
        where.fail(f"rules.{sorted(unknown)[0]}", f"unknown key; the keys are {', '.join((*_KEYS, 'exercises', 'extensions'))}")
    default = _exercise_rules(raw, ExerciseRules(), where, "rules")
    exercises = {}
    for name, own in where.mapping(raw.get("exercises", {}), "rules.exercises").items():
        path = f"rules.exercises.{name}"
        where.mapping(own, path)
        if set(own) - set(_KEYS):
            where.fail(f"{path}.{sorted(set(own) - set(_KEYS))[0]}", f"unknown key; the keys are {', '.join(_KEYS)}")
        exercises[str(name)] = _exercise_rules(own, default, where, path)
    extensions: dict[str, dict[str, float]] = {}
    for student, own in where.mapping(raw.get("extensions", {}), "rules.extensions").items():
        path = f"rules.extensions.{student}"
        extensions[str(student)] = {str(e): where.time(until, f"{path}.{e}")
                                    for e, until in where.mapping(own, path).items()}
    return CourseRules(default, exercises, extensions)


def _exercise_rules(raw: Mapping[str, Any], base: ExerciseRules, where: _Where, path: str) -> ExerciseRules:
    rules = base
    if "deadline" in raw:
        rules = replace(rules, deadline=where.time(raw["deadline"], f"{path}.deadline"))
    if "late" in raw:
        late = where.mapping(raw["late"], f"{path}.late")
        per = late.get("per", "day")
        if per not in PER:
            where.fail(f"{path}.late.per", f"{per!r} is not day or hour")
        penalty = late.get("penalty", 0)
        if not isinstance(penalty, (int, float)) or isinstance(penalty, bool) or not 0 <= penalty <= 100:
            where.fail(f"{path}.late.penalty", "a percent of the score, from 0 to 100")
        cutoff = where.time(late["cutoff"], f"{path}.late.cutoff") if "cutoff" in late else None
        rules = replace(rules, late=Late(float(penalty), per, cutoff))
    if "rate" in raw:
        rate = where.mapping(raw["rate"], f"{path}.rate")
        count = rate.get("submissions")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            where.fail(f"{path}.rate.submissions", "a whole number of submissions, at least 1")
        rules = replace(rules, rate=Rate(count, where.duration(rate.get("per"), f"{path}.rate.per")))
    for key, choices in (("hidden", HIDDEN), ("counts", COUNTS)):
        if key in raw:
            if raw[key] not in choices:
                where.fail(f"{path}.{key}", f"{raw[key]!r} is not one of {', '.join(choices)}")
            rules = replace(rules, **{key: raw[key]})
    return rules


class _Where:
    def __init__(self, file: Path) -> None:
        self.file = file

    def fail(self, key: str, message: str) -> None:
        raise UsageError(f"{self.file}: {key}: {message}")

    def mapping(self, value: object, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(key, "must be a mapping")
        return value  # type: ignore[return-value]

    def time(self, value: object, key: str) -> float:
        if isinstance(value, str):
            try:
                value = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                self.fail(key, f"{value!r} is not a date and time such as 2026-12-01T23:59:00Z")
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            value = dt.datetime.combine(value, dt.time(23, 59, 59))
        if not isinstance(value, dt.datetime):
            self.fail(key, "a date and time such as 2026-12-01T23:59:00Z")
        assert isinstance(value, dt.datetime)
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)  # YAML's timestamps without a zone are UTC
        return value.timestamp()

    def duration(self, value: object, key: str) -> float:
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd])\s*", str(value)) if value is not None else None
        if match is None or float(match[1]) <= 0:
            self.fail(key, f"{value!r} is not a duration such as 30s, 10m, 1h or 1d")
        assert match is not None
        return float(match[1]) * UNITS[match[2]]
