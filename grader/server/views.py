"""What a reader may see of the server's state. `shown` is the one rule every reply, list and page meant for a
student is made from: until the course's `hidden:` rule releases them, a student's verdicts, scores,
counts and history are computed from their visible tests alone, and no server path reaches them. And the
gradebook with the rules applied, saying what it applied (for staff)."""

from __future__ import annotations

import datetime as dt
import math
import tempfile
from dataclasses import replace
from pathlib import Path

from grader.gradebook import Cell, Gradebook
from grader.batch.store import ExerciseRow
from grader.model import Outcome, Report
from grader.outputs.json_report import as_json, gradebook_json
from grader.records import record
from grader.server.inputs import strict_json
from grader.server.queue import Exercises
from grader.server.rules import CourseRules, Lateness
from grader.server.state import State, Submission
from grader.server.tokens import Caller

GRADEBOOK_FORMATS = ("json", "csv", "canvas", "moodle", "plain")
HIDDEN_PATH = "…"  # what a student reads where the server's text named one of its folders


def iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def shown(submission: Submission, caller: Caller, rules: CourseRules, now: float, private: tuple[str, ...] = (),
          inputs: dict[str, str] | None = None) -> dict[str, object]:
    """A submission as `caller` may see it now, as the API's JSON; the pages render this too, so a student's
    list, page and reply cannot disagree. `private`: the server's folders (state, course), never shown to a
    student. `inputs`: the visible tests' inputs, which `grader submit` shows beside a failure."""
    seen = submission if caller.staff else seen_by_student(submission, rules, now, private)
    return _as_json(seen, rules, inputs)


def seen_by_student(submission: Submission, rules: CourseRules, now: float, private: tuple[str, ...]) -> Submission:
    """The rule: the report without staff details, hidden tests left out (and the verdict, score and counts
    made from the visible ones) until the rules show them; the server's own words about a failure without
    their detail (a path, an exception) and with none of its folders."""
    report = submission.report
    if report is not None:
        report = student_report(report, rules, submission.student, now)
        report = replace(report, notes=tuple(_unpathed(n, private) for n in report.notes),
                         outcomes=tuple(_unpathed_outcome(o, private) for o in report.outcomes))
    error = _unpathed(submission.error.split(": ", 1)[0], private) if submission.error else submission.error
    return replace(submission, report=report, error=error)


def student_report(report: Report, rules: CourseRules, student: str, now: float) -> Report:
    """The report as the student may see it now: hidden tests' verdicts only when the rules show them."""
    report = replace(report, staff=())
    if rules.hidden_shown(student, report.exercise, now) or not any(o.hidden for o in report.outcomes):
        return report
    hidden = sum(o.hidden for o in report.outcomes)
    when = "after the deadline" if rules.of(report.exercise).hidden == "after-deadline" else "to staff only"
    note = f"{hidden} hidden test{'s' if hidden != 1 else ''} ran too; their verdicts show {when}"
    return replace(report, outcomes=tuple(o for o in report.outcomes if not o.hidden), visible_only=True,
                   notes=(*report.notes, note))


def _unpathed(text: str, private: tuple[str, ...]) -> str:
    for folder in private:
        text = text.replace(folder, HIDDEN_PATH)
    return text


def _unpathed_outcome(outcome: Outcome, private: tuple[str, ...]) -> Outcome:
    feedback, details = _unpathed(outcome.feedback, private), _unpathed(outcome.details, private)
    if (feedback, details) == (outcome.feedback, outcome.details):
        return outcome
    return replace(outcome, feedback=feedback, details=details)


def counted_score(score: float, lateness: Lateness) -> float | None:
    """The late rule: what a hand-in graded `score` counts for, its late penalty taken off; nothing after
    the cut-off. The gradebook and every reply use this one rule, so a student sees what the gradebook keeps."""
    return None if lateness.too_late else score * (1 - lateness.penalty / 100)


def combined(submission: Submission, report: Report, lateness: Lateness) -> float | None:
    """What a graded submission counts for: the tests' score plus its review's points once released (held
    between 0 and the exercise's points: a rubric adjusts the tests' score, never passes the exercise's
    worth), then the late rule. The one rule: the gradebook, the LTI passback and every reply use it."""
    points = submission.review_points or 0.0
    score = min(max(report.score + points, 0.0), max(report.max_score, report.score)) if points else report.score
    return counted_score(score, lateness)


def _as_json(submission: Submission, rules: CourseRules, inputs: dict[str, str] | None) -> dict[str, object]:
    lateness = rules.lateness(submission.student, submission.exercise, submission.submitted_at)
    report = submission.report if submission.status in ("done", "error") else None
    view: dict[str, object] | None = None
    if report is not None:
        view = as_json(report)
        if report.staff:  # a staff reader's: a student's report has none left
            view["staff_details"] = [{"test": d.test, "expected": d.expected, "actual": d.actual,
                                      "traceback": d.traceback} for d in report.staff]
    entry: dict[str, object] = {
        "id": submission.id, "exercise": submission.exercise, "student": submission.student,
        "status": submission.status, "submitted_at": iso(submission.submitted_at), "late": lateness.late,
        "late_penalty": lateness.penalty, "file": submission.sent_name, "graded_at": iso(submission.graded_at),
        "report": view,
        # From the report as this reader sees it (a student's: visible tests only until hidden are released).
        "counted_score": combined(submission, report, lateness) if report is not None and
        submission.status == "done" else None,
    }
    if submission.review_points is not None:  # a released review's: see /api/reviews for its items
        entry["review_points"] = submission.review_points
    if view is not None and inputs:
        entry["inputs"] = inputs
    if submission.error:
        entry["error"] = submission.error
    return entry


@record
class Allowance:
    """What the rate rule leaves a student of an exercise now."""
    left: int  # submissions they may still make in the window
    of: int  # the rule's `rate.submissions`
    window: float  # seconds
    frees_at: float | None  # when the next one frees up (none: none is used)


def allowance(state: State, rules: CourseRules, student: str, exercise: str, now: float) -> Allowance | None:
    """The rate rule for one student and exercise (none: the exercise has no rate rule). An upload is refused
    when nothing is left; the exercise's page shows what is."""
    rate = rules.of(exercise).rate
    if rate is None:
        return None
    recent = state.list(student=student, exercise=exercise, since=now - rate.window)
    left = max(0, rate.submissions - len(recent))
    # The oldest within the window frees first; with nothing left, the one that brings the count under.
    frees = recent[-rate.submissions] if left == 0 else (recent[0] if recent else None)
    return Allowance(left, rate.submissions, rate.window, frees.submitted_at + rate.window if frees else None)


def build_gradebook(state: State, exercises: Exercises, rules: CourseRules,
                    student: str | None = None) -> tuple[Gradebook, list[dict[str, object]]]:
    """The class as `grader batch` would write it, each cell the submission the rules count, late penalties,
    released reviews and TA overrides applied; and, per cell, what was applied (`student`: theirs only)."""
    rows: list[ExerciseRow] = []
    for exercise_id in exercises.ids():
        try:
            exercise, digest, _ = exercises.get(exercise_id)
        except Exception:  # noqa: BLE001 - a broken spec has no column; its submissions' errors say why
            continue
        tests = [{"name": t.name, "points": t.points, "hidden": t.hidden, "big": t.big} for t in exercise.tests]
        rows.append(ExerciseRow(exercise.id, exercise.title, str(exercise.kind), digest, exercise.max_score, tests))
    known = {row.id for row in rows}
    students = state.students() if student is None else [student]
    overrides = state.overrides()
    counted: dict[tuple[str, str], tuple[Submission, float, float]] = {}
    for submission in state.list(student=student):
        if submission.exercise not in known or submission.report is None or submission.status != "done":
            continue
        lateness = rules.lateness(submission.student, submission.exercise, submission.submitted_at)
        score = combined(submission, submission.report, lateness)
        if score is None:
            continue
        where = (submission.student, submission.exercise)
        best = rules.of(submission.exercise).counts == "best"
        if where not in counted or not best or score >= counted[where][1]:
            counted[where] = submission, score, lateness.penalty
    cells: dict[tuple[str, str], Cell] = {}
    applied: list[dict[str, object]] = []
    reviews = {review.submission: review for review in state.reviews(student=student)}
    for (name, exercise_id), (submission, score, penalty) in sorted(counted.items()):
        report = replace(submission.report, submission=f"{name}/{submission.sent_name}")  # type: ignore[arg-type]
        override = overrides.get((name, exercise_id))
        if override is not None and not math.isfinite(override.score):
            override = None  # stored before scores were checked: no gradebook could carry it
        final = override.score if override else score
        cells[(name, exercise_id)] = Cell(name, exercise_id, submission.sent_name, submission.sha256, report,
                                          0.0, 0.0, submission.id, report.verdict, final)
        entry: dict[str, object] = {"student": name, "exercise": exercise_id, "submission": submission.id,
                                    "counts": rules.of(exercise_id).counts, "late_penalty": penalty,
                                    "graded_score": report.score, "score": final}
        if override:
            entry["override"] = {"score": override.score, "reason": override.reason, "by": override.by,
                                 "at": iso(override.at)}
        review = reviews.get(submission.id)
        released = review is not None and review.released_at is not None
        if review is not None:  # a pending one is shown to staff, marked, and counts only once released
            entry["review"] = {"points": review.points, "released": released,
                               "items": [item[0] for item in review.items], "by": review.by, "at": iso(review.at)}
        # Which part came from where: the tests, the released review's rubric points, the late rule, a TA.
        entry["parts"] = {"tests": report.score, "rubric": review.points if released else 0.0,  # type: ignore[union-attr]
                          "late_penalty": penalty, "override": override.score if override else None,
                          "from": "override" if override else "tests+rubric" if released else "tests"}
        applied.append(entry)
    students = sorted(set(students) | {s for s, _ in counted})
    from grader.version import grader_version

    return Gradebook(grader_version(), rows, students, cells), applied


def scores_of(state: State, exercises: Exercises, rules: CourseRules, student: str) -> dict[str, float]:
    """A student's score per exercise as the gradebook counts it now: what the audit's rows go from and to."""
    book, _ = build_gradebook(state, exercises, rules, student)
    return {exercise: cell.score for (_, exercise), cell in book.cells.items()}


def gradebook_text(book: Gradebook, applied: list[dict[str, object]], kind: str, class_list: dict[str, object]) -> str:
    """The gradebook in one of GRADEBOOK_FORMATS, written by the batch's own outputs."""
    if kind == "json":
        return strict_json({**gradebook_json(book), "applied": applied}) + "\n"
    from grader.outputs import output
    from grader.outputs.lms_gradebook import CLASS_FILE

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / CLASS_FILE).write_text(strict_json(class_list), encoding="utf-8")
        written = output(kind).write(book, Path(folder))
        return written[0].read_text(encoding="utf-8")


def write_similarity(state: State, exercises: Exercises, rules: CourseRules, out: Path) -> Path:
    """The similarity report of `grader similar` on the submissions the gradebook counts: out/similarity/."""
    from grader.similarity.batch_output import write

    book, _ = build_gradebook(state, exercises, rules)
    stored = {cell.run_id: submission.file for cell in book.cells.values()
              if (submission := state.get(cell.run_id)) is not None}
    cells = {key: replace(cell, file=stored.get(cell.run_id)) for key, cell in book.cells.items()}
    specs = [exercises.get(row.id)[0] for row in book.exercises]
    from grader.variants.served import wrong_variant_flags  # params: hand-ins that solve a classmate's variant

    solves = {(student, exercise): solver for student in book.students
              for exercise, solver in wrong_variant_flags(exercises, state, student).items()}
    return write(replace(book, cells=cells, solves=solves), out, submissions=state.folder, exercises=specs)[0]
