"""What a route does that both the JSON API and the pages do: a hand-in accepted under the course's rules
(size, suffix, late cut-off, rate), and a TA's override checked."""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from grader.errors import GraderError
from grader.kinds import kind_of
from grader.server import inputs
from grader.server.exam_gate import hand_in_refusal
from grader.server.group_commit import NotAdmitted
from grader.server.inputs import Refused
from grader.server.state import Override
from grader.server.tokens import Caller
from grader.server.views import allowance
from grader.server.web import Reply, Server, error

HAND_IN_SUFFIXES = (".py", ".ipynb", ".zip")  # and the kind's own (.txt for a prediction)
logger = logging.getLogger("uvicorn.error.uploads")


@dataclass
class Accepted:
    number: int | None = None
    refusal: Response | None = None
    csrf_failed: bool = False


async def accept_upload(server: Server, caller: Caller, request: Request,
                        csrf: Callable[[object], bool] | None = None) -> Accepted:
    """The hand-in of a POST stored, or the response that refuses it (413, 404, 422, 429, 403). `csrf`: a
    page's form, whose `csrf` field this judges."""
    try:
        async with request.form(max_files=1, max_fields=8, max_part_size=64 * 1024) as form:
            if csrf is not None and not csrf(form.get("csrf")):
                return Accepted(refusal=error(403, "a stale form"), csrf_failed=True)
            exercise_id, upload = form.get("exercise"), form.get("file")
            if not isinstance(exercise_id, str) or not isinstance(upload, UploadFile):
                return Accepted(refusal=error(422, "multipart fields `exercise` (an id) and `file` (a file) are needed"))
            data = await upload.read(server.max_upload + 1)
            sent_name = inputs.file_name(upload.filename or "")
    except HTTPException as problem:  # a malformed form, over a limit of the parser's, or over the body's
        return Accepted(refusal=too_large(server) if problem.status_code == 413 else
                        error(problem.status_code, str(problem.detail)))
    if len(data) > server.max_upload:
        return Accepted(refusal=too_large(server))
    if exercise_id not in server.exercises.ids():
        return Accepted(refusal=error(404, f"no exercise {exercise_id!r} in this course"))
    closed = hand_in_refusal(server, caller, exercise_id)  # an exam's work is handed in by its end
    if closed is not None:
        return Accepted(refusal=error(closed.status, closed.reason))
    try:
        exercise = server.exercises.get(exercise_id)[0]
    except GraderError:  # its reason names the course's files: staff read it in a submission's error
        return Accepted(refusal=error(503, f"the exercise {exercise_id} cannot be graded now; your teacher can "
                                           "see why"))
    suffix = PurePath(sent_name.replace("\\", "/")).suffix.lower()  # only its suffix: never a path of ours
    allowed = (*HAND_IN_SUFFIXES, kind_of(exercise.kind).suffix)
    if suffix not in allowed:
        return Accepted(refusal=error(422, f"{exercise_id} takes a file ending in {', '.join(sorted(set(allowed)))}; "
                                           f"this one ends in {suffix or 'nothing'}"))

    def refused() -> Response | None:
        return None if caller.staff else _over_the_rules(server, caller.student, exercise_id, time.time())

    def store() -> Accepted:
        refusal = refused()  # first: an upload over the rules costs no disk
        if refusal is not None:
            return Accepted(refusal=refusal)
        incoming = server.state.receive(data, f"{exercise_id}{suffix}")  # the slow part, beside the others'
        try:  # asked again in its group's turn: the rate limit's count and the row, never both fit
            return Accepted(server.state.store(caller.student, exercise_id, sent_name, suffix, incoming,
                                               hashlib.sha256(data).hexdigest(), admit=refused,
                                               key=object() if caller.staff else None))  # staff: no rate
        except NotAdmitted as no:
            return Accepted(refusal=no.refusal)  # type: ignore[arg-type]  # what `refused` returned
        except Exception as failure:  # the disk or the database: this upload was not kept, the others were
            logger.exception("an upload of %s was not stored", exercise_id)
            return Accepted(refusal=error(503, f"the server could not store this upload ({type(failure).__name__});"
                                               " nothing was kept: send it again", **{"Retry-After": "5"}))

    accepted = await run_in_threadpool(store)
    server.loop.wake()
    return accepted


def _over_the_rules(server: Server, student: str, exercise_id: str, now: float) -> Response | None:
    if server.rules.lateness(student, exercise_id, now).too_late:
        return error(403, f"the late cut-off for {exercise_id} has passed: no more submissions are taken")
    left = allowance(server.state, server.rules, student, exercise_id, now)
    if left is None or left.left > 0 or left.frees_at is None:
        return None
    wait = left.frees_at - now
    return error(429, f"{left.of} submissions of {exercise_id} per {left.window:g} s at most; try again "
                      f"in {math.ceil(wait)} s", **{"Retry-After": str(max(1, math.ceil(wait)))})


def too_large(server: Server) -> Reply:
    return error(413, f"the upload is over the limit of {server.max_upload // 1024} KiB")



def override_of(server: Server, caller: Caller, student: object, exercise: object, score: object,
                reason: object, typed: bool = False) -> Override:
    """A TA's override as the API or the staff page sent it, checked (`typed`: the score is a form's text):
    a known student and exercise, a finite score within the exercise's points, a reason of 500 characters."""
    student, exercise = inputs.name(student, "student"), inputs.name(exercise, "exercise")
    reason = inputs.text(reason, "reason", 500)
    if exercise not in server.exercises.ids():
        raise Refused(404, f"no exercise {exercise!r} in this course")
    if student not in server.state.students():
        raise Refused(404, f"no student {student!r} on this server")
    try:
        most = server.exercises.get(exercise)[0].max_score
    except GraderError:
        raise Refused(503, f"the exercise {exercise} cannot be read now: its points are unknown") from None
    points = inputs.score_text(score, most) if typed else inputs.score(score, most)
    return Override(student, exercise, points, reason, caller.student, time.time())
