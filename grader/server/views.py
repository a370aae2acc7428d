"""What a reader may see of the server's state. `shown` is the one rule every reply, list and page meant for a
student is made from: until the course's `hidden:` rule releases them, a student's verdicts, scores,
counts and history are computed from their visible tests alone, and no server path reaches them. And the
gradebook with the rules applied, saying what it applied (for staff)."""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from grader.batch.store import ExerciseRow
from grader.counting import Attempt, Count, count, counted_for
from grader.gradebook import Cell, Gradebook
from grader.model import Outcome, Report
from grader.outputs import NEEDS_ROSTER, SERVED_GRADEBOOKS
from grader.outputs.json_report import as_json, gradebook_json
from grader.readers import Reader, report_seen, staff_detail_json
from grader.records import record
from grader.server.exams_store import test_run_submissions
from grader.server.inputs import strict_json
from grader.server.queue import Exercises
from grader.server.rules import CourseRules, Lateness
from grader.server.state import Override, State, Submission
from grader.server.tokens import Caller

# The formats GET /api/gradebook answers in, and those that need the class's roster (a Moodle import needs an
# email, sis_id, login or id: only a roster has them): read from grader.outputs.OUTPUTS, plugins included.
GRADEBOOK_FORMATS = SERVED_GRADEBOOKS
ROSTER_FORMATS = NEEDS_ROSTER
HIDDEN_PATH = "…"  # what a student reads where the server's text named one of its folders


def iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def shown(submission: Submission, caller: Caller, rules: CourseRules, now: float, private: tuple[str, ...] = (),
          inputs: dict[str, str] | None = None, counted: Count | None = None) -> dict[str, object]:
    """A submission as `caller` may see it now, as the API's JSON; the pages render this too, so a student's
    list, page and reply cannot disagree. `private`: the server's folders (state, course), never shown to a
    student. `inputs`: the visible tests' inputs, which `grader submit` shows beside a failure. `counted`:
    what its exercise counts for as this reader sees it (shown_all makes it)."""
    seen = submission if caller.staff else seen_by_student(submission, rules, now, private)
    return _as_json(seen, rules, inputs, counted)


def seen_by_student(submission: Submission, rules: CourseRules, now: float, private: tuple[str, ...]) -> Submission:
    """The rule: the report without staff details, hidden tests left out (and the verdict, score and counts
    made from the visible ones) until the rules show them; the server's own words about a failure without
    their detail (a path, an exception) and with none of its folders."""
    report = submission.report
    if report is not None:
        report = student_report(report, rules, submission.student, now)
    if report is not None:
        report = replace(report, notes=tuple(_unpathed(n, private) for n in report.notes),
                         outcomes=tuple(_unpathed_outcome(o, private) for o in report.outcomes))
    error = _unpathed(submission.error.split(": ", 1)[0], private) if submission.error else submission.error
    return replace(submission, report=report, error=error)


def student_report(report: Report, rules: CourseRules, student: str, now: float) -> Report | None:
    """The report as the student may see it now (grader.readers' rule): hidden tests' verdicts only when
    the course's rules show them, their details never. An exam's exercise until its results show: the
    visible tests only, or (feedback: none) nothing at all, no score either (exams.feedback_now)."""
    during = rules.exams.feedback_for(report.exercise, now)
    if during == "none":
        return None
    released = rules.hidden_shown(student, report.exercise, now) and during == "all"
    seen = report_seen(report, Reader.STUDENT, released)
    if len(seen.outcomes) == len(report.outcomes):
        return seen
    hidden = len(report.outcomes) - len(seen.outcomes)
    when = "with the exam's results" if during == "visible" else \
        "after the deadline" if rules.of(report.exercise).hidden == "after-deadline" else "to staff only"
    note = f"{hidden} hidden test{'s' if hidden != 1 else ''} ran too; their verdicts show {when}"
    return replace(seen, notes=(*seen.notes, note))


def _unpathed(text: str, private: tuple[str, ...]) -> str:
    for folder in private:
        text = text.replace(folder, HIDDEN_PATH)
    return text


def _unpathed_outcome(outcome: Outcome, private: tuple[str, ...]) -> Outcome:
    feedback, details = _unpathed(outcome.feedback, private), _unpathed(outcome.details, private)
    if (feedback, details) == (outcome.feedback, outcome.details):
        return outcome
    return replace(outcome, feedback=feedback, details=details)


def attempt_of(submission: Submission, report: Report, lateness: Lateness) -> Attempt:
    """A graded submission as the one rule of the score that counts reads it (grader.counting), from the
    report its reader is shown."""
    return Attempt(submission.id, report.score, report.max_score, submission.review_points, submission.answered,
                   lateness.penalty, lateness.too_late)


def counts_of(submissions: Iterable[Submission], rules: CourseRules, overrides: dict[tuple[str, str], Override],
              report_of: Callable[[Submission], Report | None]) -> dict[tuple[str, str], Count]:
    """What each (student, exercise) counts for, by grader.counting, from the graded submissions' reports as
    `report_of` shows them to their reader: staff the whole report, a student their own view of it."""
    graded: dict[tuple[str, str], list[Attempt]] = {}
    for submission in submissions:  # in the order handed in
        if submission.report is None or submission.status != "done":
            continue
        report = report_of(submission)
        if report is None:  # withheld from this reader (an exam's, until its results): it counts for nothing yet
            continue
        lateness = rules.lateness(submission.student, submission.exercise, submission.submitted_at)
        where = (submission.student, submission.exercise)
        graded.setdefault(where, []).append(attempt_of(submission, report, lateness))
    found = {}
    for where, attempts in graded.items():
        override = overrides.get(where)
        found[where] = count(attempts, rules.of(where[1]).counts, override.score if override else None)
    return found


def shown_all(state: State, rules: CourseRules, caller: Caller, submissions: list[Submission], now: float,
              private: tuple[str, ...] = (), inputs: dict[str, str] | None = None) -> list[dict[str, object]]:
    """`shown` for each of these submissions, each with the score that counts as its reader sees it: made
    from every submission of its student and exercise, so a line, a page and the gradebook agree."""
    counts = reader_counts(state, rules, caller, {s.student for s in submissions}, now)
    return [shown(s, caller, rules, now, private, inputs, counts.get((s.student, s.exercise))) for s in submissions]


def reader_counts(state: State, rules: CourseRules, caller: Caller, students: set[str],
                  now: float) -> dict[tuple[str, str], Count]:
    """What these students' exercises count for as `caller` sees them: staff from the whole reports (the
    gradebook's count), a student from their own view (hidden tests left out until released)."""
    if not students:
        return {}
    siblings = state.list(student=next(iter(students))) if len(students) == 1 else state.list()
    if caller.staff:
        return counts_of(siblings, rules, state.overrides(), lambda s: s.report)  # type: ignore[arg-type, return-value]
    return counts_of(siblings, rules, state.overrides(),
                     lambda s: student_report(s.report, rules, s.student, now))  # type: ignore[arg-type]


def _as_json(submission: Submission, rules: CourseRules, inputs: dict[str, str] | None,
             counted: Count | None) -> dict[str, object]:
    lateness = rules.lateness(submission.student, submission.exercise, submission.submitted_at)
    report = submission.report if submission.status in ("done", "error") else None
    view: dict[str, object] | None = None
    if report is not None:
        view = as_json(report)
        if report.staff:  # a staff reader's: a student's report has none left
            view["staff_details"] = [staff_detail_json(d) for d in report.staff]
    entry: dict[str, object] = {
        "id": submission.id, "exercise": submission.exercise, "student": submission.student,
        "status": submission.status, "submitted_at": iso(submission.submitted_at), "late": lateness.late,
        "late_penalty": lateness.penalty, "file": submission.sent_name, "graded_at": iso(submission.graded_at),
        "report": view,
        # From the reports as this reader sees them (a student's: visible tests only until hidden are released).
        "counted_score": None,
        "counted": False,  # the submission its exercise counts now
    }
    if report is not None and submission.status == "done":
        counted = counted or count([attempt_of(submission, report, lateness)], rules.of(submission.exercise).counts)
        entry.update(counted_score=counted_for(counted, submission.id), counted=counted.submission == submission.id)
    if submission.answered is not None:  # staff's score for it, answering a regrade request
        entry["regrade_score"] = submission.answered
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
    trials = test_run_submissions(state)  # staff trying an exam: never in the gradebook
    submissions = state.list(student=student)
    tried = {s.student for s in submissions if s.id in trials} - {s.student for s in submissions if s.id not in trials}
    students = [s for s in (state.students() if student is None else [student]) if s not in tried]
    overrides = state.overrides()
    everything = {s.id: s for s in submissions if s.exercise in known and s.id not in trials}
    counted = counts_of(everything.values(), rules, overrides, lambda s: s.report)  # type: ignore[arg-type, return-value]
    cells: dict[tuple[str, str], Cell] = {}
    applied: list[dict[str, object]] = []
    reviews = {review.submission: review for review in state.reviews(student=student)}
    for (name, exercise_id), found in sorted(counted.items()):
        if found.submission is None or found.score is None:
            continue  # nothing counts: every hand-in came after the cut-off
        submission = everything[found.submission]
        report = replace(submission.report, submission=f"{name}/{submission.sent_name}")  # type: ignore[arg-type]
        penalty = rules.lateness(name, exercise_id, submission.submitted_at).penalty
        override = overrides.get((name, exercise_id)) if found.override is not None else None
        cells[(name, exercise_id)] = Cell(name, exercise_id, submission.sent_name, submission.sha256, report,
                                          0.0, 0.0, submission.id, report.verdict, found.score)
        entry: dict[str, object] = {"student": name, "exercise": exercise_id, "submission": submission.id,
                                    "counts": rules.of(exercise_id).counts, "late_penalty": penalty,
                                    "graded_score": report.score, "score": found.score}
        if override:
            entry["override"] = {"score": override.score, "reason": override.reason, "by": override.by,
                                 "at": iso(override.at)}
        review = reviews.get(submission.id)
        released = review is not None and review.released_at is not None
        if review is not None:  # a pending one is shown to staff, marked, and counts only once released
            entry["review"] = {"points": review.points, "released": released,
                               "items": [item[0] for item in review.items], "by": review.by, "at": iso(review.at)}
        # Which part came from where: the tests, the released review's rubric points, a regrade answer, the
        # late rule, a TA's override (grader.counting decided which applies).
        entry["parts"] = {"tests": report.tests_score, "rubric": review.points if released else 0.0,  # type: ignore[union-attr]
                          "regrade": submission.answered, "late_penalty": penalty,
                          "override": override.score if override else None, "from": found.source}
        if report.quality is not None:  # the spec's `quality:`: what it took off the tests' points
            entry["parts"]["quality"] = -report.quality_taken or 0.0  # type: ignore[index]
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
