"""One hand-in as the analytics read it, and what they take from its report. Read defensively: a report may
come from an older grader, a store edited by hand or a forged upload, so a missing field, a wrong type or
a huge value is read as what it can be, and a record that is no hand-in at all is left out with a note."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import NamedTuple

from grader.model import Verdict
from grader.records import record

SHOWN = 200  # characters of an answer (or a name) shown; the rest is counted, never copied into the output
VERDICTS = frozenset(str(v) for v in Verdict)
NOT_FAILED = frozenset({str(Verdict.PASSED), str(Verdict.SKIPPED)})  # skipped: not run, so not a mistake
# The verdicts whose text tells one mistake from another; the others (a timeout, a syntax error...) are one
# mistake each whatever their text says (a timeout's feedback carries its seconds, a syntax error its line).
BY_TEXT = frozenset({str(Verdict.WRONG_ANSWER), str(Verdict.RUNTIME_ERROR), str(Verdict.RULE_VIOLATION)})


@record
class Handin:
    """What a front door hands the engine: the batch's store (`from_store`) and the server's stored reports.
    `report`: as `grader check --format json` writes it, plus `staff_details` as the server's staff view
    adds them (hidden tests' expected and actual values). `submitted_at`: seconds since the epoch, an ISO
    time, or None when unknown (a batch has one hand-in per student and no time for it). `submission`: what
    the front door calls this hand-in (the server's id, the batch's file), shown with an example answer."""

    student: str
    exercise: str
    submitted_at: float | str | None
    report: Mapping[str, object]
    submission: str | None = None


class Answer(NamedTuple):  # a tuple, not a record: a class has hundreds of thousands, made in a loop
    """A failing test's answer, as grouped: equal texts (same verdict) are one group."""

    key: bytes  # a digest of the verdict and the whole text, so a huge answer is held once, as 16 bytes
    shown: str | None  # bounded; None: the verdict alone is the answer
    length: int  # of the whole text
    expected: str | None  # bounded


class TestResult(NamedTuple):
    verdict: str
    hidden: bool
    answer: Answer | None  # None when it passed or was skipped


@record
class Graded:
    """A hand-in, read."""

    student: str
    exercise: str
    submitted_at: float | None
    submission: str | None
    order: int  # its place in the input: the tie-break between hand-ins of one time
    score: float
    tests: dict[str, TestResult] = field(default_factory=dict)  # name -> result, in the report's order
    failing: frozenset[str] = frozenset()  # the tests it fails
    passed: bool = False  # every test passed (and there was one)
    inputs: dict[str, str] = field(default_factory=dict)  # name -> its input (a hidden test's from staff details)

    def failed(self, test: str) -> bool:
        return test in self.failing


def read_handins(items: Iterable[object]) -> tuple[list[Graded], list[str]]:
    """Every readable hand-in, and notes on what was left out and why."""
    graded: list[Graded] = []
    left_out: dict[str, int] = {}
    for order, item in enumerate(items):
        read = _handin(item)
        if isinstance(read, str):
            left_out[read] = left_out.get(read, 0) + 1
            continue
        student, exercise, when, report, submission = read
        if report.get("verdict") == Verdict.MISSING:
            continue  # a batch's placeholder for a file not handed in: not a hand-in
        graded.append(_graded(student, exercise, when, report, submission, order))
    notes = [f"{count} record{'s' if count != 1 else ''} left out: {why}" for why, count in sorted(left_out.items())]
    return graded, notes


def _handin(item: object) -> tuple[str, str, float | None, Mapping[str, object], str | None] | str:
    """The hand-in's parts, or why it is not one."""
    if isinstance(item, Handin):
        parts: tuple[object, ...] = (item.student, item.exercise, item.submitted_at, item.report, item.submission)
    elif isinstance(item, Mapping):
        parts = tuple(item.get(k) for k in ("student", "exercise", "submitted_at", "report", "submission"))
    elif isinstance(item, (tuple, list)) and len(item) in (4, 5):
        parts = (*item, None) if len(item) == 4 else tuple(item)
    else:
        return "not a (student, exercise, submitted_at, report) record"
    student, exercise, when, report, submission = parts
    if not isinstance(student, str) or not student:
        return "no student name"
    if not isinstance(exercise, str) or not exercise:
        return "no exercise id"
    if not isinstance(report, Mapping):
        return "no report"
    return student, exercise, seconds(when), report, None if submission is None else str(submission)


def seconds(when: object) -> float | None:
    """A time as seconds since the epoch: a number, or an ISO time as the server's API writes it."""
    if isinstance(when, bool):
        return None
    if isinstance(when, (int, float)):
        value = float(when) if abs(when) < 1e15 else math.nan  # far past any date: not a time
        return value if math.isfinite(value) else None
    if isinstance(when, str) and len(when) <= 64:
        try:
            moment = dt.datetime.fromisoformat(when.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.timezone.utc)
        return moment.timestamp()
    return None


def _graded(student: str, exercise: str, when: float | None, report: Mapping[str, object],
            submission: str | None, order: int) -> Graded:
    staff = _staff_details(report.get("staff_details"))
    tests: dict[str, TestResult] = {}
    inputs: dict[str, str] = {}
    points = 0.0
    entries = report.get("tests")
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str) or entry["name"] in tests:
            continue
        name = entry["name"]
        verdict = entry.get("verdict")
        verdict = verdict if isinstance(verdict, str) and verdict in VERDICTS else "unknown"
        points += _number(entry.get("points")) or 0.0
        failed = verdict not in NOT_FAILED
        tests[name] = TestResult(verdict, entry.get("hidden") is True,
                                 _answer(verdict, entry, staff.get(name, {})) if failed else None)
        given = entry.get("input") if entry.get("input") is not None else staff.get(name, {}).get("input")
        if isinstance(given, str) and given:  # staff read it: a hidden test's too (grader.readers)
            inputs[name] = bounded(given)
    score = _number(report.get("score"))
    failing = frozenset(name for name, result in tests.items() if result.answer is not None)
    passed = bool(tests) and all(result.verdict == Verdict.PASSED for result in tests.values())
    return Graded(student, exercise, when, submission, order, points if score is None else score, tests, failing,
                  passed, inputs)


def _staff_details(details: object) -> dict[str, Mapping[str, object]]:
    found: dict[str, Mapping[str, object]] = {}
    for detail in details if isinstance(details, list) else ():
        if isinstance(detail, Mapping) and isinstance(detail.get("test"), str):
            found.setdefault(detail["test"], detail)
    return found


def _answer(verdict: str, entry: Mapping[str, object], staff: Mapping[str, object]) -> Answer:
    """What this failure answered: a wrong answer's value or output (the staff's copy for a hidden test),
    an error's line; for the other verdicts the verdict alone."""
    text: str | None = None
    if verdict == Verdict.WRONG_ANSWER:
        actual = entry.get("actual")
        text = _text(actual if actual is not None else staff.get("actual"))
        if text is None:
            text = _first_line(entry.get("feedback"))
    elif verdict in BY_TEXT:
        text = _first_line(entry.get("feedback"))
    expected = entry.get("expected")
    expected_text = _text(expected if expected is not None else staff.get("expected"))
    whole = text if text is not None else ""
    digest = hashlib.blake2b(f"{verdict}\0{'' if text is None else 't'}".encode() + whole.encode("utf-8", "surrogatepass"),
                             digest_size=16).digest()
    return Answer(digest, None if text is None else bounded(text), len(whole),
                  None if expected_text is None else bounded(expected_text))


def _text(value: object) -> str | None:
    """A value as text: a string as it is, any other JSON value as JSON (a forged report may send one)."""
    if value is None or isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=True, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return "<a value that cannot be shown>"


def _first_line(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    return value.strip().split("\n", 1)[0][:10 * SHOWN]  # a line past any error's: held bounded


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int past a float's range
        return None
    return number if math.isfinite(number) else None


def bounded(text: str) -> str:
    """At most SHOWN characters of `text`, saying how many more there were."""
    if len(text) <= SHOWN:
        return text
    return f"{text[:SHOWN]}… ({len(text) - SHOWN} more characters)"
