"""Exams: a set of exercises with a window (opens, closes), a duration that starts when the student first
opens it, accommodations (`time_factor`) and per-student overrides, a feedback rule while it runs and
optional address ranges. The rules are pure functions of the exam, the student, their start and `now`, by
the server's clock, the only one (a client's clock is never asked: numbas-lti-provider#125, muikku#7589):
a student's end is min(closes, start + duration x time_factor), each term their own (issue 45).

There is no hand-in button and no grace period: what the last save holds at the end is graded (Artemis's
lost hand-ins, #1955 and #2795). The files are read by exams_spec.py; the server's side is exams_store.py
and exam_routes.py."""

from __future__ import annotations

import ipaddress
from dataclasses import field
from pathlib import Path
from typing import Literal

from grader.records import record

Feedback = Literal["visible", "none"]  # while it runs: the visible tests' verdicts only, or nothing at all
FEEDBACK: tuple[Feedback, ...] = ("visible", "none")
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@record
class Own:
    """One student's overrides of the exam's terms (None: the exam's own)."""

    opens: float | None = None
    closes: float | None = None
    duration: float | None = None  # seconds
    time_factor: float | None = None


@record
class Terms:
    """The terms one student sits the exam under, overrides applied."""

    opens: float
    closes: float
    duration: float  # seconds, the time factor applied
    time_factor: float


@record
class Exam:
    id: str
    title: str
    exercises: tuple[str, ...]
    opens: float  # epoch seconds
    closes: float
    duration: float  # seconds, before a time factor
    time_factor: float = 1.0
    feedback: Feedback = "visible"
    results_at: float | None = None  # None: when the last student's window closes
    addresses: tuple[Network, ...] = ()  # none: any address
    students: dict[str, Own] = field(default_factory=dict)
    path: Path = Path()

    def terms(self, student: str) -> Terms:
        own = self.students.get(student, Own())
        factor = own.time_factor if own.time_factor is not None else self.time_factor
        duration = own.duration if own.duration is not None else self.duration
        return Terms(own.opens if own.opens is not None else self.opens,
                     own.closes if own.closes is not None else self.closes, duration * factor, factor)

    @property
    def released_at(self) -> float:
        """When the results show, whatever the feedback rule: `results_at`, else the last window's close."""
        if self.results_at is not None:
            return self.results_at
        return max([self.closes, *(own.closes for own in self.students.values() if own.closes is not None)])


def ends_at(exam: Exam, student: str, started_at: float) -> float:
    """The student's end: their window's close, or their start plus their duration, whichever is first."""
    terms = exam.terms(student)
    return min(terms.closes, started_at + terms.duration)


Phase = Literal["not-open", "open", "running", "ended", "closed"]


def phase(exam: Exam, student: str, started_at: float | None, now: float) -> Phase:
    """not-open: before the window; open: may start; running: started and time left; ended: started and
    time up; closed: the window closed before they started."""
    terms = exam.terms(student)
    if started_at is not None:
        return "running" if now < ends_at(exam, student, started_at) else "ended"
    if now < terms.opens:
        return "not-open"
    return "open" if now < terms.closes else "closed"


def quiet_gap(exam: Exam, student: str, most: float) -> float:
    """How long a page may be silent before the log calls it a disconnect: `most` seconds, or a tenth of the
    student's time in a short exam."""
    return min(most, exam.terms(student).duration / 10)


def seconds_left(exam: Exam, student: str, started_at: float | None, now: float) -> float | None:
    """The time left by the server's clock; None before the start (a late starter is shown their own end,
    not the full duration: Submitty#10440)."""
    if started_at is None:
        return None
    return max(0.0, ends_at(exam, student, started_at) - now)


def start_refusal(exam: Exam, student: str, started_at: float | None, now: float, staff: bool = False) -> str | None:
    """Why the student may not start (or reopen) the exam now; None: they may. Staff may take a test run at
    any time."""
    if started_at is not None or staff:
        return None
    terms = exam.terms(student)
    if now < terms.opens:
        return f"the exam {exam.id} opens at {_iso(terms.opens)} (the server's time)"
    if now >= terms.closes:
        return f"the exam {exam.id} closed at {_iso(terms.closes)}"
    return None


def save_refusal(exam: Exam, student: str, started_at: float | None, now: float) -> str | None:
    """Why a save of this exam's work is refused now; None: it is taken. Only between the student's start
    and their end, by the server's clock: no grace period, and nothing after the end."""
    if started_at is None:
        return f"start the exam {exam.id} first: its work is saved only while it runs for you"
    end = ends_at(exam, student, started_at)
    if now >= end:
        return f"your time for the exam {exam.id} ended at {_iso(end)} (the server's time): your last save was graded"
    return None


def address_refusal(exam: Exam, address: str | None) -> str | None:
    """Why a request from this address is refused; None: the exam has no ranges, or the address is in one."""
    if not exam.addresses:
        return None
    try:
        found = ipaddress.ip_address(address or "")
    except ValueError:
        return f"the exam {exam.id} is taken only from its rooms' addresses, and this request's is unknown"
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        found = found.ipv4_mapped
    if any(found.version == net.version and found in net for net in exam.addresses):
        return None
    return f"the exam {exam.id} is taken only from its rooms' addresses, not from {found}"


def feedback_now(exam: Exam, now: float) -> Literal["all", "visible", "none"]:
    """What a student sees of a report of this exam's exercises now: until the results show, the exam's
    rule (the visible tests only, or nothing); after, what the course's rules show."""
    return "all" if now >= exam.released_at else exam.feedback


def _iso(at: float) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
