"""Scores to the LMS (Assignment and Grade Services) and the roster from it (Names and Role Provisioning).

Who is sent a score: every learner of the link's course the LMS knows, by the id it gave them: those who
launched, and those its roster lists under the name a launch would give them (a student who handed in with
a token, and never opened the tool from the LMS).

A sync, not a hook: each round compares the score the gradebook counts now (counted_scores: the one rule
of grader.counting: the late penalty, released reviews, regrade answers, overrides) with the last score
the LMS accepted for that (resource link, student), and sends what differs. A regrade or an override therefore sends the new score with no call from their code; a score that would
tell a student what their hidden tests do is held until the deadline;
a send that fails is kept with its error (staff see it at /api/lti/status) and tried again, less often each
time, until the LMS takes it."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone
from typing import Any

from grader.platforms.lti.store import Store
from grader.server.web import Server

ROUND_SECONDS = 5.0
ROSTER_SECONDS = 600.0
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
MEMBERS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


def _backoff(failures: int) -> float:
    return min(2.0 ** failures, 600.0)


def counted_scores(server: Server) -> tuple[Any, dict[tuple[str, str], float]]:
    """The gradebook, and the score each (student, exercise) counts for as the LMS is sent it: the
    gradebook's cells, whose scores grader.counting decided, as every other reader's. An exam's are held
    until its results show: the LMS's gradebook is a page its students read."""
    import time

    from grader.server.views import build_gradebook

    book, _ = build_gradebook(server.state, server.exercises, server.rules)
    now = time.time()
    return book, {key: cell.score for key, cell in book.cells.items()
                  if server.rules.exams.feedback_for(key[1], now) == "all"}


def send_scores(server: Server, store: Store, now: float | None = None) -> list[dict[str, Any]]:
    """One round: the scores that changed, sent. What was tried, with the outcome of each."""
    from pylti1p3.assignments_grades import AssignmentsGradesService
    from pylti1p3.grade import Grade
    from pylti1p3.service_connector import ServiceConnector

    from grader.platforms.lti.protocol import registration

    links = [link for link in store.links() if link.lineitem and SCORE_SCOPE in link.scopes]
    if not links:
        return []
    now = time.time() if now is None else now
    book, scores = counted_scores(server)
    maxima = {row.id: row.max_score for row in book.exercises}
    with_hidden = {row.id for row in book.exercises if any(t["hidden"] for t in row.tests)}
    sends = store.sends()
    tried: list[dict[str, Any]] = []
    connectors: dict[tuple[str, str], Any] = {}
    for link in links:
        platform = store.platform(link.issuer, link.client_id)
        if platform is None or link.exercise not in maxima:
            continue
        members = store.members(link.issuer, link.context)
        users = store.users(link.issuer)
        for subject, student in store.listed(link.issuer).items():
            # A learner the LMS lists who never launched: sent their score when the server has one under the
            # name their launch would give them (they handed in with a token), and no one else took it.
            if subject not in users and (student, link.exercise) in scores and subject in members \
                    and store.adopt(link.issuer, subject, student):
                users[subject] = student
        for subject, student in users.items():
            score = scores.get((student, link.exercise))
            if score is None or subject not in members:
                continue
            if _held(server.rules, student, link.exercise, link.exercise in with_hidden, now):
                tried.append({"link": link.link, "user_id": subject, "student": student, "score": None,
                              "held": "until the deadline: the score would tell what the hidden tests do"})
                continue
            last = sends.get((link.issuer, link.link, subject))
            if last is not None:
                sent, _, failures, error, at = last
                if sent is not None and abs(sent - score) < 1e-9 and not error:
                    continue
                if error and now < at + _backoff(failures):
                    continue
            key = (platform.issuer, platform.client_id)
            if key not in connectors:
                connectors[key] = ServiceConnector(registration(platform, store))
            grade = (Grade().set_score_given(round(score, 6)).set_score_maximum(maxima[link.exercise])
                     .set_user_id(subject).set_activity_progress("Completed").set_grading_progress("FullyGraded")
                     .set_timestamp(datetime.now(timezone.utc).isoformat(timespec="milliseconds")))
            problem: str | None = None
            try:
                AssignmentsGradesService(connectors[key], {"scope": list(link.scopes), "lineitem": link.lineitem}
                                         ).put_grade(grade)
            except Exception as error:  # noqa: BLE001 - any failure is kept for staff and retried
                problem = _reason(error)
            store.record_send(link.issuer, link.link, subject, score, problem)
            tried.append({"link": link.link, "user_id": subject, "student": student, "score": score,
                          "error": problem})
    return tried


def _held(rules: Any, student: str, exercise: str, has_hidden: bool, now: float) -> bool:
    """A score is not sent while the student may not see their hidden tests' verdicts and a deadline is
    still to come: in the LMS's gradebook it would tell them what the pages hide."""
    if not has_hidden or rules.of(exercise).hidden == "always":
        return False
    deadline = rules.deadline_of(student, exercise)
    return deadline is not None and now <= deadline


def _reason(error: Exception) -> str:
    response = getattr(error, "response", None)
    if response is not None:
        return f"the LMS answered {response.status_code}: {response.text[:300]}"
    return f"{type(error).__name__}: {str(error)[:300]}"


def read_rosters(store: Store) -> list[dict[str, Any]]:
    """Each course's members, read from the LMS (NRPS) into the store. What was read, per course."""
    from pylti1p3.names_roles import NamesRolesProvisioningService
    from pylti1p3.service_connector import ServiceConnector

    from grader.platforms.lti.protocol import registration

    done: dict[tuple[str, str], dict[str, Any]] = {}
    for link in store.links():
        key = (link.issuer, link.context)
        if not link.members_url or key in done:
            continue
        platform = store.platform(link.issuer, link.client_id)
        if platform is None:
            continue
        try:
            service = NamesRolesProvisioningService(ServiceConnector(registration(platform, store)),
                                                    {"context_memberships_url": link.members_url})
            members = service.get_members()
            store.save_roster(link.issuer, link.context, members)
            done[key] = {"issuer": link.issuer, "context": link.context, "members": len(members)}
        except Exception as error:  # noqa: BLE001 - reported, and read again next time
            done[key] = {"issuer": link.issuer, "context": link.context, "error": _reason(error)}
    return list(done.values())


class Passback(threading.Thread):
    """The rounds, on a thread of the server's: woken early by a launch, stopped with the process."""

    def __init__(self, server: Server, store: Store) -> None:
        super().__init__(name="lti-passback", daemon=True)
        self.server, self.store = server, store
        self.woken = threading.Event()
        self.stopped = threading.Event()
        self.last_roster = 0.0

    def wake(self) -> None:
        self.woken.set()

    def stop(self) -> None:
        self.stopped.set()
        self.woken.set()

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                send_scores(self.server, self.store)
                if time.monotonic() - self.last_roster > ROSTER_SECONDS and self.store.links():
                    read_rosters(self.store)
                    self.last_roster = time.monotonic()
            except Exception:  # noqa: BLE001 - a closed database at shutdown, a broken spec: next round
                pass
            self.woken.wait(ROUND_SECONDS)
            self.woken.clear()
