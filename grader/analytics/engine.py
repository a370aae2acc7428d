"""The analytics of a class: hand-ins in, one JSON document out (grader/schemas/analytics.schema.json).

Who is counted: a student who handed an exercise in (at least one report). Their first submission is the
earliest, their latest the last, their best the highest score (the latest of equal scores, as the server's
`counts: best` takes it). A test fails when its verdict is neither `passed` nor `skipped`."""

from __future__ import annotations

import datetime as dt
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

from grader.analytics.handins import Answer, Graded, bounded, read_handins
from grader.analytics.mutants import Mutant

SCHEMA_VERSION = 1
TOP = 10  # wrong answers per test, and failure patterns per exercise, unless the caller asks for more


def analyse(handins: Iterable[object], *, mutants: Mapping[str, Sequence[Mutant]] | None = None,
            top: int = TOP) -> dict[str, object]:
    """The whole class: every exercise someone handed in, in id order."""
    graded, notes = read_handins(handins)
    classes: dict[str, dict[str, list[Graded]]] = {}
    for handin in graded:
        classes.setdefault(handin.exercise, {}).setdefault(handin.student, []).append(handin)
    exercises = [_exercise(exercise, classes[exercise], (mutants or {}).get(exercise, ()), top, notes)
                 for exercise in sorted(classes)]
    return {"schema_version": SCHEMA_VERSION, "students": len({h.student for h in graded}), "handins": len(graded),
            "notes": notes, "exercises": exercises}


def exercise_analytics(handins: Iterable[object], exercise: str, *,
                       mutants: Mapping[str, Sequence[Mutant]] | None = None, top: int = TOP) -> dict[str, object] | None:
    """One exercise's entry (what `GET /api/analytics?exercise=ID` returns), or None when nobody handed it in."""
    found = analyse((h for h in handins if _exercise_of(h) == exercise), mutants=mutants, top=top)
    entries: list[dict[str, object]] = found["exercises"]  # type: ignore[assignment]
    return next((e for e in entries if e["id"] == exercise), None)


def empty_exercise(exercise: str) -> dict[str, object]:
    """The entry of an exercise nobody handed in yet: no students, no tests, nothing failing."""
    return _exercise(exercise, {}, (), TOP, [])


def _exercise_of(handin: object) -> object:
    if isinstance(handin, Mapping):
        return handin.get("exercise")
    if isinstance(handin, (tuple, list)):
        return handin[1] if len(handin) > 1 else None
    return getattr(handin, "exercise", None)


def _exercise(exercise: str, class_: dict[str, list[Graded]], mutants: Sequence[Mutant], top: int,
              notes: list[str]) -> dict[str, object]:
    for handins in class_.values():  # in time; unknown times keep the input's order, after the known ones
        handins.sort(key=lambda h: (h.submitted_at is None, h.submitted_at or 0.0, h.order))
    students = sorted(class_)
    first = [class_[s][0] for s in students]
    latest = [class_[s][-1] for s in students]
    best = [_best(class_[s]) for s in students]
    count = len(students)
    tests = _tests_in_order(class_[s] for s in students)
    entry: dict[str, object] = {
        "id": exercise, "students": count, "submissions": sum(len(h) for h in class_.values()),
        "failing": sum(not h.passed for h in latest),
        "failing_share": _share(sum(not h.passed for h in latest), count),
        "failing_share_first": _share(sum(not h.passed for h in first), count),
        "failing_share_best": _share(sum(not h.passed for h in best), count),
        "first_pass": _first_pass([class_[s] for s in students], lambda h: h.passed),
        "tests": [_test(name, hidden, students, class_, first, latest, best, top) for name, hidden in tests.items()],
    }
    known = set(tests)
    caught = [m for m in mutants if m.failing <= known]
    if len(caught) < len(mutants):
        notes.append(f"{exercise}: {len(mutants) - len(caught)} mutants fail tests this class's reports do not have "
                     f"(the spec changed since grader validate --mutants ran?): not matched")
    patterns = Counter(h.failing for h in latest if h.failing)
    example: dict[frozenset[str], Graded] = {}
    for handin in latest:
        example.setdefault(handin.failing, handin)
    order = list(tests)
    entry["failure_patterns"] = [
        {"failing_tests": sorted(pattern, key=order.index), "students": n, "share": _share(n, count),
         "mutants": [_named(m) for m in caught if m.failing == pattern], "example": _example(example[pattern])}
        for pattern, n in sorted(patterns.items(), key=lambda p: (-p[1], sorted(map(order.index, p[0]))))[:top]]
    entry["distinct_failure_patterns"] = len(patterns)
    entry["mutants"] = sorted(
        ({**_named(m), "status": m.status, "failing_tests": sorted(m.failing, key=order.index),
          "students": patterns.get(m.failing, 0), "share": _share(patterns.get(m.failing, 0), count),
          "sentence": f"{m.what or m.id} fails exactly the tests {_percent(patterns.get(m.failing, 0), count)} "
                      f"of the class fails"} for m in caught),
        key=lambda m: (-m["students"], m["id"]))  # type: ignore[operator]
    return entry


def _best(handins: list[Graded]) -> Graded:
    best = handins[0]
    for handin in handins[1:]:
        if handin.score >= best.score:
            best = handin
    return best


def _tests_in_order(classes: Iterable[list[Graded]]) -> dict[str, bool]:
    """Every test's name, in the reports' order (the spec's), with whether the latest report has it hidden."""
    tests: dict[str, bool] = {}
    for handins in classes:
        for handin in handins:
            for name, result in handin.tests.items():
                tests[name] = result.hidden
    return tests


def _test(name: str, hidden: bool, students: list[str], class_: dict[str, list[Graded]], first: list[Graded],
          latest: list[Graded], best: list[Graded], top: int) -> dict[str, object]:
    count = len(students)
    failing = [h for h in latest if h.failed(name)]
    groups: dict[bytes, _Group] = {}
    for student in students:
        latest_key = _key(class_[student][-1], name)
        seen: set[bytes] = set()
        for handin in class_[student]:
            result = handin.tests.get(name)
            if result is None or result.answer is None:
                continue
            group = groups.setdefault(result.answer.key, _Group(result.verdict, result.answer, handin))
            group.submissions += 1
            if result.answer.key not in seen:
                seen.add(result.answer.key)
                group.students += 1
                group.latest += result.answer.key == latest_key
    ranked = sorted(groups.values(), key=lambda g: (-g.students, -g.submissions, g.verdict, g.answer.shown or ""))
    return {
        "name": name, "hidden": hidden, "students": count, "failing": len(failing),
        "input": next((h.inputs[name] for h in latest if name in h.inputs), None),  # for staff: hidden too
        "failing_share": _share(len(failing), count),
        "failing_share_first": _share(sum(h.failed(name) for h in first), count),
        "failing_share_best": _share(sum(h.failed(name) for h in best), count),
        "not_run": sum(name not in h.tests for h in latest),
        "verdicts": dict(sorted(Counter(h.tests[name].verdict for h in failing).items(), key=lambda v: (-v[1], v[0]))),
        "first_pass": _first_pass([class_[s] for s in students], lambda h: h.tests.get(name) is not None
                                  and h.tests[name].verdict == "passed"),
        "wrong_answers": [g.json(count) for g in ranked[:top]],
        "distinct_wrong_answers": len(groups),
    }


def _key(handin: Graded, test: str) -> bytes | None:
    result = handin.tests.get(test)
    return None if result is None or result.answer is None else result.answer.key


class _Group:
    """One wrong answer of one test, and who gave it."""

    def __init__(self, verdict: str, answer: Answer, example: Graded) -> None:
        self.verdict, self.answer, self.example = verdict, answer, example
        self.students = self.latest = self.submissions = 0

    def json(self, count: int) -> dict[str, object]:
        return {"verdict": self.verdict, "answer": self.answer.shown, "answer_length": self.answer.length,
                "expected": self.answer.expected, "students": self.students, "share": _share(self.students, count),
                "latest_students": self.latest, "submissions": self.submissions, "example": _example(self.example)}


def _first_pass(classes: list[list[Graded]], passed: Callable[[Graded], bool]) -> dict[str, object]:
    """How many submissions, and how long from the first, each student took to a first pass."""
    attempts: list[int] = []
    waits: list[float] = []
    for handins in classes:
        for number, handin in enumerate(handins, start=1):
            if passed(handin):
                attempts.append(number)
                start = handins[0].submitted_at
                if start is not None and handin.submitted_at is not None:
                    waits.append(handin.submitted_at - start)
                break
    return {"students": len(attempts), "never": len(classes) - len(attempts),
            "attempts_median": statistics.median(attempts) if attempts else None,
            "attempts_mean": statistics.fmean(attempts) if attempts else None,
            "seconds_median": statistics.median(waits) if waits else None,
            "seconds_mean": statistics.fmean(waits) if waits else None}


def _named(mutant: Mutant) -> dict[str, object]:
    return {"id": mutant.id, "rule": mutant.rule, "what": mutant.what}


def _example(handin: Graded) -> dict[str, object]:
    return {"student": bounded(handin.student), "submission": None if handin.submission is None else bounded(handin.submission),
            "submitted_at": _iso(handin.submitted_at)}


def _iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    try:
        moment = dt.datetime.fromtimestamp(seconds, dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _percent(part: int, whole: int) -> str:
    return f"{_share(part, whole):.0%}"
