"""The human half of grading on the server: a TA's review of a submission (rubric items ticked, comments on
lines of its code), released to students by a staff action; a student's regrade request and its thread;
and the audit of every score change. Every input is checked here, as grader/server/inputs.py checks the
others (a `Refused` with a 4xx and a reason), before anything reaches the database. No web framework:
the routes (grader/server/review_routes.py) and the pages call these."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from grader.counting import submission_score
from grader.errors import GraderError
from grader.model import RubricItem
from grader.outputs.cells import csv_text
from grader.server import inputs
from grader.server.inputs import Refused
from grader.server.state import Change, Message, RegradeRequest, Review, Submission
from grader.server.tokens import Caller
from grader.server.views import attempt_of, iso, reader_counts, scores_of, seen_by_student

if TYPE_CHECKING:
    from grader.server.web import Server

MESSAGE_MOST = 4000  # characters of a comment, a summary or a message
COMMENTS_MOST = 200  # line comments in one review
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}  # reorder what a reader sees


def message(value: object, what: str, most: int = MESSAGE_MOST, empty: bool = False) -> str:
    """Free text a person reads next to code or a score: inputs.text's rule, no bidirectional controls
    (they make a comment read other than it is), and not empty unless `empty`."""
    found = inputs.text(value, what, most)
    if any(c in _BIDI for c in found):
        raise Refused(422, f"{what} may not hold bidirectional control characters")
    if not empty and not found.strip():
        raise Refused(422, f"{what} is empty")
    return found


def whole(value: object, what: str, least: int, most: int) -> int:
    """A JSON whole number (not a bool, not a float) from `least` to `most`, or a form's digits."""
    if isinstance(value, str):
        parsed = inputs.submission_id(value.strip())
        value = parsed if parsed is not None else value
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise Refused(422, f"{what} is a whole number from {least} to {most}")
    return value


def submission_of(server: Server, caller: Caller, value: object) -> Submission:
    """The submission a body names: 404 when there is none, or it is another student's."""
    number = whole(value, "submission", 1, inputs.MAX_ID)
    found = server.state.get(number)
    if found is None or not (caller.staff or found.student == caller.student):
        raise Refused(404, "no such submission")
    return found


def submission_at(server: Server, caller: Caller, text: str) -> Submission:
    """The submission a path names (/submissions/ID/...): anything but an id of one of the caller's is 404."""
    number = inputs.submission_id(text)
    if number is None:
        raise Refused(404, "no such submission")
    return submission_of(server, caller, number)


def rubric_of(server: Server, exercise_id: str) -> tuple[RubricItem, ...]:
    try:
        return server.exercises.get(exercise_id)[0].rubric  # type: ignore[no-any-return]
    except GraderError:
        raise Refused(503, f"the exercise {exercise_id} cannot be read now: its rubric is unknown") from None


def code_of(server: Server, submission: Submission) -> list[str]:
    """The lines of the submission's code as it was graded (its entry file, a notebook's code cells): what a
    review's line numbers count. The stored hand-in never changes, so a regrade leaves them right."""
    from grader.handins import read_handin

    try:
        exercise = server.exercises.get(submission.exercise)[0]
        handin = read_handin(server.state.path_of(submission), exercise)
    except (GraderError, OSError, ValueError):
        return []
    return handin.source.splitlines()


# ---------------------------------------------------------------- reviews
def review_from(server: Server, caller: Caller, body: dict[str, Any]) -> Review:
    """A review as staff sent it: {"submission", "rubric": [ITEM-ID...], "comments": [{"line", "text"}],
    "summary"}, every item one of the exercise's and every line one of that submission's code."""
    submission = submission_of(server, caller, body.get("submission"))
    rubric = {item.id: item for item in rubric_of(server, submission.exercise)}
    ticked = body.get("rubric", [])
    if not isinstance(ticked, list) or len(ticked) > len(rubric) or not all(isinstance(i, str) for i in ticked):
        raise Refused(422, f"rubric is a list of the exercise's item ids ({', '.join(rubric) or 'it has none'})")
    unknown = [i for i in ticked if i not in rubric]
    if unknown:
        raise Refused(422, f"no rubric item {unknown[0][:80]!r} in {submission.exercise} (its items: "
                           f"{', '.join(rubric) or 'none'})")
    if len(set(ticked)) != len(ticked):
        raise Refused(422, "a rubric item is ticked twice")
    comments = body.get("comments", [])
    if not isinstance(comments, list) or len(comments) > COMMENTS_MOST:
        raise Refused(422, f'comments is a list of at most {COMMENTS_MOST} {{"line": N, "text": ...}}')
    lines = len(code_of(server, submission)) if comments else 0
    found: list[tuple[int, str]] = []
    for comment in comments:
        if not isinstance(comment, dict) or set(comment) != {"line", "text"}:
            raise Refused(422, 'each comment is {"line": N, "text": ...}')
        if lines == 0:
            raise Refused(422, "this submission has no code to comment on")
        found.append((whole(comment["line"], "line", 1, lines), message(comment["text"], "a comment's text")))
    summary = message(body.get("summary", ""), "summary", empty=True)
    items = tuple((rubric[i].id, rubric[i].points, rubric[i].description) for i in ticked)
    return Review(submission.id, submission.student, submission.exercise, items, tuple(sorted(found)), summary,
                  sum(points for _, points, _ in items), caller.student, time.time())


def save_review(server: Server, caller: Caller, body: dict[str, Any]) -> Review:
    review = review_from(server, caller, body)
    before = server.state.review(review.submission)
    kept = before is not None and before.released_at is not None
    review = replace(review, released_at=before.released_at if kept else None)  # type: ignore[union-attr]
    why = (f"{len(review.items)} rubric item{'s' if len(review.items) != 1 else ''}, "
           f"{len(review.comments)} line comment{'s' if len(review.comments) != 1 else ''}; "
           + ("released: it counts" if kept else "pending: it counts once released"))
    server.state.save_review(review, Change(review.student, review.exercise, review.submission, "review",
                                            caller.student, review.at, before.points if before else None,
                                            review.points, why))
    return server.state.review(review.submission) or review


def release(server: Server, caller: Caller, exercise: object, student: object) -> list[int]:
    """Release the pending reviews of an exercise, of a student, or of both: the submissions released."""
    if exercise is None and student is None:
        raise Refused(422, 'name what to release: {"exercise": ID} and/or {"student": NAME}')
    if exercise is not None:
        exercise = inputs.name(exercise, "exercise")
        if exercise not in server.exercises.ids():
            raise Refused(404, f"no exercise {exercise!r} in this course")
    if student is not None:
        student = inputs.name(student, "student")
        if student not in server.state.students():
            raise Refused(404, f"no student {student!r} on this server")
    pending = server.state.reviews(student=student, exercise=exercise, released=False)  # type: ignore[arg-type]
    now = time.time()
    changes = []
    for name in sorted({review.student for review in pending}):
        before = scores_of(server.state, server.exercises, server.rules, name)
        after = _scores_with(server, name, released=[r.submission for r in pending if r.student == name])
        for review in (r for r in pending if r.student == name):
            changes.append(Change(name, review.exercise, review.submission, "release", caller.student, now,
                                  before.get(review.exercise), after.get(review.exercise),
                                  f"review released: {review.points:+g} rubric points"))
    server.state.release([review.submission for review in pending], now, changes)
    return [review.submission for review in pending]


def _scores_with(server: Server, student: str, released: tuple[int, ...] | list[int] = (),
                 answered: dict[int, float] | None = None) -> dict[str, float]:
    """The student's scores as they will be once these reviews are released, or these submissions answered
    with these scores (computed before, so the change and its audit rows are one transaction)."""
    answered = answered or {}
    from grader.server.views import build_gradebook

    class Released:  # the state as it reads with these reviews released
        def __init__(self, state: Any) -> None:
            self.state = state

        def __getattr__(self, name: str) -> Any:
            return getattr(self.state, name)

        def list(self, **query: Any) -> list[Submission]:
            points = {r.submission: r.points for r in self.state.reviews(student=student)}
            found = [replace(s, review_points=points[s.id]) if s.id in released else s
                     for s in self.state.list(**query)]
            return [replace(s, answered=answered[s.id]) if s.id in answered else s for s in found]

    book, _ = build_gradebook(Released(server.state), server.exercises, server.rules, student)  # type: ignore[arg-type]
    return {exercise: cell.score for (_, exercise), cell in book.cells.items()}


def visible_review(server: Server, caller: Caller, submission: Submission) -> Review | None:
    """The submission's review as `caller` may see it: staff always, its student once released."""
    review = server.state.review(submission.id)
    if review is None or (not caller.staff and review.released_at is None):
        return None
    return review


def review_json(review: Review) -> dict[str, object]:
    return {"submission": review.submission, "student": review.student, "exercise": review.exercise,
            "rubric": [{"id": i, "points": p, "description": d} for i, p, d in review.items],
            "comments": [{"line": line, "text": text} for line, text in review.comments],
            "summary": review.summary, "points": review.points, "by": review.by, "at": iso(review.at),
            "released": review.released_at is not None, "released_at": iso(review.released_at)}


# ---------------------------------------------------------------- regrade requests
def ask(server: Server, caller: Caller, body: dict[str, Any]) -> RegradeRequest:
    """A student's request about a test (`test`) or a rubric item (`rubric_item`) of their own submission."""
    if caller.staff:
        raise Refused(403, "regrade requests are asked by students; staff answer on /api/regrade-requests/ID")
    submission = submission_of(server, caller, body.get("submission"))
    text = message(body.get("message"), "message")
    about = about_of(server, caller, submission, body.get("test"), body.get("rubric_item"))
    number = server.state.add_request(submission, about, text, time.time())
    return server.state.request(number)  # type: ignore[return-value]


def about_of(server: Server, caller: Caller, submission: Submission, test: object, item: object) -> str:
    """"test:NAME" or "rubric:ID": a test the student can see in the report, or an item of a released review."""
    if (test is None) == (item is None):
        raise Refused(422, 'name one thing to ask about: "test" (a test\'s name) or "rubric_item" (an item\'s id)')
    if test is not None:
        name = inputs.name(test, "test")
        report = submission.report
        if report is not None and not caller.staff:
            report = seen_by_student(submission, server.rules, time.time(), ()).report
        if report is None or name not in {outcome.test for outcome in report.outcomes}:
            raise Refused(422, f"no test {name[:80]!r} in this submission's report")
        return f"test:{name}"
    wanted = inputs.name(item, "rubric_item")
    review = visible_review(server, caller, submission)
    if review is None:
        raise Refused(422, "this submission has no released review to ask about")
    if wanted not in {item.id for item in rubric_of(server, submission.exercise)}:
        raise Refused(422, f"no rubric item {wanted[:80]!r} in {submission.exercise}")
    return f"rubric:{wanted}"


def request_of(server: Server, caller: Caller, text: str) -> RegradeRequest:
    """A request from a path's id: 404 when there is none, or it is another student's."""
    number = inputs.submission_id(text)
    found = server.state.request(number) if number is not None else None
    if found is None or not (caller.staff or found.student == caller.student):
        raise Refused(404, "no such regrade request")
    return found


def reply(server: Server, caller: Caller, request: RegradeRequest, body: dict[str, Any], typed: bool = False) -> None:
    """Staff answer (`score`: the new score of the submission the request is about, its tests and rubric
    replaced, the late rule still applied; absent or null: unchanged); the student writes again on their
    own request (it is open again). `typed`: a form's text score. Which submission counts is then worked
    out again by grader.counting: an answer about an old submission never changes a newer counted one's."""
    text = message(body.get("message"), "message")
    now = time.time()
    if not caller.staff:
        if set(body) - {"message"}:
            raise Refused(403, "only staff change a score")
        server.state.follow_up(request, caller.student, text, now)
        return
    sent = body.get("score")
    score = change = None
    if sent is not None and sent != "":
        try:
            most = server.exercises.get(request.exercise)[0].max_score
        except GraderError:
            raise Refused(503, f"the exercise {request.exercise} cannot be read now: its points are unknown") from None
        score = inputs.score_text(sent, most) if typed else inputs.score(sent, most)
        before = scores_of(server.state, server.exercises, server.rules, request.student).get(request.exercise)
        after = _scores_with(server, request.student, answered={request.submission: score}).get(request.exercise)
        change = Change(request.student, request.exercise, request.submission, "request", caller.student, now,
                        before, after, f"regrade request {request.id}: {text[:300]}")
    server.state.answer_request(request, caller.student, text, now, score, change)


def request_json(server: Server, request: RegradeRequest, caller: Caller | None = None) -> dict[str, object]:
    """The request and its thread; for a `caller`, also what its exercise counts for now as they see it
    (`counted`: which submission, its score) and, for staff, what each answer that set a score changed
    (`answers`: the submission, its new score, the score that counts before and after: the audit's row)."""
    messages = server.state.messages(request.id)
    thread = [message_json(m) for m in messages]
    found: dict[str, object] = {
        "id": request.id, "submission": request.submission, "student": request.student,
        "exercise": request.exercise, "about": request.about, "status": request.status, "at": iso(request.at),
        "thread": thread}
    if caller is None:
        return found
    counted = reader_counts(server.state, server.rules, caller, {request.student}, time.time()).get(
        (request.student, request.exercise))
    found["counted"] = {"submission": counted.submission if counted else None,
                        "score": counted.score if counted else None, "from": counted.source if counted else ""}
    if caller.staff:  # the audit's rows say what each answer did to the score that counts
        effects = {change.at: change for change in server.state.audit(request.student)
                   if change.what == "request" and change.submission == request.submission}
        found["answers"] = [
            {"at": iso(m.at), "by": m.author, "submission": request.submission, "score": m.score,
             "before": effects[m.at].before if m.at in effects else None,
             "after": effects[m.at].after if m.at in effects else None}
            for m in messages if m.staff and m.score is not None]
    return found


def message_json(found: Message) -> dict[str, object]:
    return {"author": found.author, "staff": found.staff, "text": found.text, "at": iso(found.at),
            "score": found.score}


# ---------------------------------------------------------------- the audit
AUDIT_FIELDS = ("at", "student", "exercise", "submission", "what", "who", "before", "after", "why")


def audit_rows(server: Server, student: str) -> list[dict[str, object]]:
    """Every score change of a student, oldest first: the stored rows (regrades, overrides, reviews,
    releases, answered requests) and the late rule's, which follow from the course's rules and are
    worked out when read (a rule changed later changes them too, as it changes the scores)."""
    rows = [_change_json(change) for change in server.state.audit(student)]
    for submission in server.state.list(student=student):
        if submission.status != "done" or submission.report is None:
            continue
        lateness = server.rules.lateness(student, submission.exercise, submission.submitted_at)
        if not lateness.late:
            continue
        attempt = attempt_of(submission, submission.report, lateness)
        after = submission_score(attempt)
        why = ("after the late cut-off: not counted" if after is None else
               f"late: {lateness.penalty:g} % off")
        rows.append(_change_json(Change(student, submission.exercise, submission.id, "late", "rules",
                                        submission.graded_at or submission.submitted_at,
                                        submission_score(replace(attempt, penalty=0.0, too_late=False)), after, why)))
    return sorted(rows, key=lambda row: str(row["at"]))


def _change_json(change: Change) -> dict[str, object]:
    return {"at": iso(change.at), "student": change.student, "exercise": change.exercise,
            "submission": change.submission, "what": change.what, "who": change.who, "before": change.before,
            "after": change.after, "why": change.why}


def audit_csv(rows: list[dict[str, object]]) -> str:
    """The audit as CSV, every cell by the one rule of the grader's CSVs (outputs/cells.py)."""
    return csv_text([AUDIT_FIELDS, *([row[name] for name in AUDIT_FIELDS] for row in rows)])