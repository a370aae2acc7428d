"""The grading loop: queued submissions, fairly ordered, to the worker pool both front doors share
(grader/workers/), fed as submissions arrive.

Each submission is marked `running` (its try counted) before it is submitted to the pool, and `done` or
`error` when the answer is stored. The pool's retry policy decides what a worker's death costs; each new
try is counted here too, so a server that dies leaves `running` rows that `State.recover` puts back only
while they have tries left."""

from __future__ import annotations

import json
import os
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from grader.course import Course
from grader.errors import GraderError
from grader.grading import grade, read_submission
from grader.handins.base import Handin
from grader.model import Exercise, Report
from grader.server.database import Postgres
from grader.server.peers import PeerChanges
from grader.server.state import State, Submission
from grader.variants.served import ServedVariants
from grader.version import grader_version
from grader.workers.job import Done, GradingKey, Job, job_request, pack, resolve
from grader.workers.opening import open_pool
from grader.workers.pool import DIED, RETRIES, Pool

__all__ = ["DIED", "Exercises", "GradingLoop", "grade_without_sandbox"]

# A file to which the loop appends each graded submission's moments (benchmarks/rush.py reads them): where the
# time between an upload and its report goes. Unset: nothing is written.
TIMES_VARIABLE = "GRADER_QUEUE_TIMES"


def grade_without_sandbox(exercise: Exercise, expected: dict[str, object], path: Path, label: str,
                          handin: Handin) -> Report:
    """The report of a hand-in that cannot run (unreadable, not text, an unsafe zip), graded here as a batch
    grades it. The server's one call of grading.grade()."""
    return grade(exercise, path, job_request(label), handin=handin, expected=expected)


class Exercises:
    """Each exercise as the workers grade it (expected values filled in) and the digest of what its grades
    depend on, resolved once; `forget()` after a spec or reference changed (a regrade)."""

    def __init__(self, course: Course) -> None:
        self.course = course
        self._resolved: dict[str, tuple[Exercise, str, bytes, dict[str, object]]] = {}
        self._lock = threading.Lock()
        self.variants = ServedVariants()  # params: each student's own variant (grader.variants)

    def ids(self) -> list[str]:
        return self.course.ids()

    def get(self, exercise_id: str, student: str | None = None) -> tuple[Exercise, str, bytes]:
        """(the exercise, its digest, it packed for a job); a broken spec raises a GraderError. With params,
        the student's variant (without a student: the exercise as every variant shares it, not gradable)."""
        return self._get(exercise_id, student)[:3]

    def expected(self, exercise_id: str, student: str | None = None) -> dict[str, object]:
        """Every test's expected answer, computed once (the same values `grader check` compares with)."""
        return self._get(exercise_id, student)[3]

    def _get(self, exercise_id: str, student: str | None = None) -> tuple[Exercise, str, bytes, dict[str, object]]:
        with self._lock:
            if exercise_id not in self._resolved:
                base = self.course.load(exercise_id)
                if base.params is not None:
                    self._resolved[exercise_id] = ServedVariants.unresolved(base)
                else:
                    exercise, expected, digest = resolve(base)
                    self._resolved[exercise_id] = exercise, digest, pack(exercise, expected), expected
            resolved = self._resolved[exercise_id]
        if resolved[0].params is not None and student is not None:
            return self.variants.of(resolved[0], student)
        return resolved

    def forget(self) -> None:
        with self._lock:
            self._resolved.clear()
        self.variants.forget()


def fair_order(queued: list[int], student_of: dict[int, str], in_hand: Counter[str],
               last_served: dict[str, int]) -> list[int]:
    """The queue in the order it is graded: a fair share per student, round robin. Each student's oldest
    waiting submission goes ahead of anyone's second, and so on; within a round, the student served
    longest ago (never: first) goes first, then the oldest. What a student has on the workers already counts
    as taken rounds. So one student's resubmissions cannot hold the queue while others wait."""
    turns = Counter(in_hand)
    keys = []
    for number in queued:  # oldest first
        student = student_of[number]
        keys.append((turns[student], last_served.get(student, -1), number))
        turns[student] += 1
    return [number for _, _, number in sorted(keys)]


class GradingLoop:
    """One thread feeds the pool: the next few submissions ready (claimed, read, their jobs made) before a
    worker frees, one per worker, so that none waits between two while none is committed to a worker still
    busy. The pool hands them out, first submitted first, each to the first worker free."""

    def __init__(self, state: State, exercises: Exercises, workers: int = 1, cluster: str | None = None) -> None:
        self.state, self.exercises = state, exercises
        self.pool: Pool = open_pool(workers, cluster, exercises.course.exercises_dir)
        self.pool.on_retry = self._retry
        self.claimed: dict[int, str] = {}  # submission -> its student: on the pool, not ended
        self.students: dict[int, str] = {}  # a queued submission's student, read once
        self.last_served: dict[str, int] = {}  # student -> when this server last claimed one of theirs
        self.claims = 0  # claims so far: the clock of last_served
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="grading", daemon=True)
        self.version = grader_version()
        self.on_change: Callable[[int], None] | None = None  # a submission started or finished (any thread)
        self.moments: dict[int, tuple[float, float]] = {}  # submission -> (claimed, submitted to the pool)
        self.times = os.environ.get(TIMES_VARIABLE)
        # This server's uploads wake the loop; another's, on a shared database, are found by looking again:
        # soon, or its workers idle while the other server's queue waits.
        self.poll = 0.5 if isinstance(state.db, Postgres) else 5.0
        # Servers sharing the database: each start and end told to the others' long polls at once.
        self.peers = PeerChanges.of(state.db, self._heard)

    @property
    def size(self) -> int:
        """Workers the pool has now (a cluster's may join after the server starts)."""
        return self.pool.size

    def start(self) -> None:
        self.state.recover(RETRIES)
        self.pool.start()
        self.thread.start()
        if self.peers is not None:
            self.peers.start()

    def wake(self) -> None:
        self.pool.wake()

    def stop(self) -> None:
        self._stop.set()
        if self.peers is not None:
            self.peers.stop()
        self.pool.wake()
        if self.thread.is_alive():
            self.thread.join(timeout=10)
        unbegun = self.pool.stop()
        self.pool.close()
        if not self.thread.is_alive():  # what no worker had begun goes back to the queue, its try not counted
            for job in unbegun:
                assert job.submission is not None
                self.state.unclaim(job.submission)

    # ------------------------------------------------------------ the loop
    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._feed()
                for done in self.pool.wait(timeout=self.poll):
                    self._record(done)
            except Exception:  # noqa: BLE001 - the loop must outlive any one submission's trouble
                traceback.print_exc()
                time.sleep(1)

    def _feed(self) -> None:
        """As many jobs waiting in the pool as there are workers, in the queue's fair order. A submission
        that needs no worker (unreadable, identical to one graded, its spec broken) is graded here on the
        way; one another server claimed first is passed over."""
        if self.pool.waiting() >= self.pool.size:
            return  # full: not even the query
        queued = self.state.queued()
        self.students = {n: self.students[n] for n in queued if n in self.students}
        for number in queued:
            if number not in self.students:
                submission = self.state.get(number)
                self.students[number] = submission.student if submission is not None else ""
        for number in fair_order(queued, self.students, Counter(self.claimed.values()), self.last_served):
            if self.pool.waiting() >= self.pool.size:
                return
            submission = self.state.get(number)
            job = self._job(submission) if submission is not None else None
            if job is not None and submission is not None and self.state.start(number):
                claimed = time.time()
                self.pool.submit(replace(job, tries=submission.attempts))  # tries spent before this claim
                self.moments[number] = claimed, time.time()
                self.claimed[number] = submission.student
                self.claims += 1
                self.last_served[submission.student] = self.claims
                self._changed(number)

    def _job(self, submission: Submission) -> Job | None:
        label = f"{submission.student}/{Path(submission.file).name}"
        try:
            exercise, digest, packed = self.exercises.get(submission.exercise, submission.student)
        except GraderError as error:
            self.state.finish(submission.id, Report(submission.exercise, label, ()), "", f"the exercise cannot be "
                              f"graded: {error}")
            return None
        twin = self.state.twin(submission, digest)
        if twin is not None:
            self.state.finish(submission.id, replace(twin, submission=label), digest)
            self._changed(submission.id)
            return None
        path = self.state.path_of(submission)
        handin = read_submission(path, exercise)
        if not handin.ok:
            report = grade_without_sandbox(exercise, self.exercises.expected(submission.exercise, submission.student),
                                           path, label, handin)
            self.state.finish(submission.id, report, digest)
            self._changed(submission.id)
            return None
        key = GradingKey(handin.digest(), digest, self.version, True)  # every test runs
        private = self.exercises.course.private_paths(self.state.folder)
        return Job(key, packed, label, handin, private, submission=submission.id)

    def _record(self, done: Done) -> None:
        number = done.job.submission
        assert number is not None
        received = time.time()
        self.claimed.pop(number, None)
        self.state.finish(number, done.graded.report, done.job.key.exercise, done.failure,
                          seconds=None if done.failure else done.graded.wall_seconds)
        self._changed(number)
        moments = self.moments.pop(number, None)
        if self.times and moments is not None:
            line = {"id": number, "claimed": moments[0], "submitted": moments[1], "received": received,
                    "grading": done.graded.wall_seconds, "stored": time.time()}
            with open(self.times, "a", encoding="utf-8") as out:
                out.write(json.dumps(line) + "\n")

    def _retry(self, job: Job) -> bool:
        """A new try of a submission whose worker died: counted in the database, as the first was. False
        when another server sharing the database claimed it in between: it is theirs now."""
        number = job.submission
        assert number is not None
        self.state.requeue(number)
        if self.state.start(number):
            return True
        self.claimed.pop(number, None)
        self._changed(number)
        return False

    def _changed(self, number: int) -> None:
        self._heard(number)
        if self.peers is not None:
            self.peers.tell(number)

    def _heard(self, number: int) -> None:
        """A submission changed, here or on another server: wake whoever waits on it."""
        if self.on_change is not None:
            self.on_change(number)
