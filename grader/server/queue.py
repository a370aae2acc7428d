"""The grading loop: queued submissions, oldest first, to local worker processes, the same workers
(grader/batch/worker.py) and jobs (grader/batch/work.py) as `grader batch`, fed as submissions arrive.

Each submission is marked `running` (its try counted) before a worker gets it, and `done` or `error` when
the answer is stored. A worker that dies is replaced and its submission queued once more, then recorded as
an error with the reason; a server that dies leaves `running` rows that `State.recover` puts back."""

from __future__ import annotations

import hashlib
import os
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Container, Iterator
from dataclasses import replace
from pathlib import Path

from grader.batch.plan import grader_version, resolve
from grader.batch.pool import RETRIES, _start, _Worker, cores_for
from grader.batch.work import Graded, GradingKey, Job, batch_request, pack, uniform_report
from grader.course import Course
from grader.errors import GraderError
from grader.grading import grade, read_submission
from grader.handins.base import Handin
from grader.model import Exercise, Report, Verdict
from grader.server.state import State, Submission

DIED = "the grading worker process died on this submission, twice"


def grade_without_sandbox(exercise: Exercise, expected: dict[str, object], path: Path, label: str,
                          handin: Handin) -> Report:
    """The report of a hand-in that cannot run (unreadable, not text, an unsafe zip), graded here as a batch
    grades it. The server's one call of grading.grade()."""
    return grade(exercise, path, batch_request(label), handin=handin, expected=expected)


class Exercises:
    """Each exercise as the workers grade it (expected values filled in) and the digest of what its grades
    depend on, resolved once; `forget()` after a spec or reference changed (a regrade)."""

    def __init__(self, course: Course) -> None:
        self.course = course
        self._resolved: dict[str, tuple[Exercise, str, bytes, dict[str, object]]] = {}
        self._lock = threading.Lock()

    def ids(self) -> list[str]:
        return self.course.ids()

    def get(self, exercise_id: str) -> tuple[Exercise, str, bytes]:
        """(the exercise, its digest, it packed for a job); a broken spec raises a GraderError."""
        return self._get(exercise_id)[:3]

    def expected(self, exercise_id: str) -> dict[str, object]:
        """Every test's expected answer, computed once (the same values `grader check` compares with)."""
        return self._get(exercise_id)[3]

    def _get(self, exercise_id: str) -> tuple[Exercise, str, bytes, dict[str, object]]:
        with self._lock:
            if exercise_id not in self._resolved:
                exercise, expected, digest = resolve(self.course.load(exercise_id))
                self._resolved[exercise_id] = exercise, digest, pack(exercise, expected), expected
            return self._resolved[exercise_id]

    def forget(self) -> None:
        with self._lock:
            self._resolved.clear()


class GradingLoop:
    """One thread hands the queue to the workers as a perfect queue would: first come, first served, each
    submission to the first worker free, none committed to a worker still busy (a submission behind a
    looping one there would wait for its timeout while another worker idles). So that a worker does not
    wait between two either, the next few submissions are ready (claimed, read, their jobs made) before a
    worker frees, and a worker that answers gets its next job before its answer is stored."""

    def __init__(self, state: State, exercises: Exercises, workers: int) -> None:
        self.state, self.exercises, self.size = state, exercises, workers
        self.cores = cores_for(workers)
        self.workers: list[_Worker] = []
        self.ready: deque[Job] = deque()  # claimed and made, for the next worker free, oldest first
        self.claimed: set[int] = set()  # submission ids ready or on a worker
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_write, False)
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="grading", daemon=True)
        self.version = grader_version()
        self.on_change: Callable[[int], None] | None = None  # a submission started or finished (any thread)

    def start(self) -> None:
        self.state.recover(RETRIES)
        self.workers = [_start(core) for core in self.cores]
        self.thread.start()

    def wake(self) -> None:
        try:
            os.write(self._wake_write, b"x")
        except BlockingIOError:
            pass  # a wake-up is already pending

    def stop(self) -> None:
        self._stop.set()
        self.wake()
        if self.thread.is_alive():
            self.thread.join(timeout=10)
        for worker in self.workers:
            worker.stop()
        self.workers = []
        if not self.thread.is_alive():  # what no worker had begun goes back to the queue, its try not counted
            while self.ready:
                self.state.unclaim(int(self.ready.popleft().key.submission.split(":", 1)[0]))

    # ------------------------------------------------------------ the loop
    def _run(self) -> None:
        from multiprocessing.connection import wait

        while not self._stop.is_set():
            try:
                self._prepare()
                self._hand_out()
                busy = [w for w in self.workers if w.jobs]
                answered = set(wait([self._wake_read, *(w.conn for w in busy), *(w.pidfd for w in busy)], timeout=5))
                if self._wake_read in answered:
                    os.read(self._wake_read, 4096)
                for worker in busy:
                    if worker.conn in answered:
                        try:
                            graded: Graded = worker.conn.recv()
                        except (EOFError, OSError):
                            pass  # it died while answering: handled below
                        else:
                            job = worker.jobs.popleft()
                            self._hand_out()  # its next job first: the answer's commit can wait, the worker not
                            self._record(job, graded)
                            continue
                    elif worker.pidfd not in answered:
                        continue
                    self._replace(worker)
            except Exception:  # noqa: BLE001 - the loop must outlive any one submission's trouble
                traceback.print_exc()
                time.sleep(1)

    def _prepare(self) -> None:
        """As many jobs ready as there are workers, the oldest queued first. A submission that needs no
        worker (unreadable, identical to one graded, its spec broken) is graded here on the way."""
        for number, job in self._claim(self.claimed, lambda: len(self.ready) < len(self.workers)):
            self.claimed.add(number)
            self.ready.append(job)
            self._changed(number)

    def _hand_out(self) -> None:
        """A ready job to every idle worker; one each, so that none sits on a job another could run."""
        for worker in self.workers:
            if self.ready and not worker.jobs:
                try:
                    worker.send(self.ready.popleft())
                except OSError:
                    pass  # it died: its pidfd says so, and its job goes back to the queue

    def _claim(self, taken: Container[int], room: Callable[[], bool]) -> Iterator[tuple[int, Job]]:
        """Queued submissions claimed for grading, oldest first, while there is `room`, skipping those
        `taken` already; one that needs no worker is graded here on the way (_job), one another server
        claimed first is passed over."""
        if not room():
            return  # full: not even the query
        for number in self.state.queued():
            if not room():
                return
            if number in taken:
                continue
            submission = self.state.get(number)
            job = self._job(submission) if submission is not None else None
            if job is not None and self.state.start(number):
                yield number, job

    def _job(self, submission: Submission) -> Job | None:
        label = f"{submission.student}/{Path(submission.file).name}"
        try:
            exercise, digest, packed = self.exercises.get(submission.exercise)
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
            report = grade_without_sandbox(exercise, self.exercises.expected(submission.exercise), path, label, handin)
            self.state.finish(submission.id, report, digest)
            self._changed(submission.id)
            return None
        key = GradingKey(f"{submission.id}:{handin.digest()}", digest, self.version, True)  # every test runs
        private = self.exercises.course.private_paths(self.state.folder)
        return Job(key, packed, label, handin, private)

    def _record(self, job: Job, graded: Graded) -> None:
        number = int(job.key.submission.split(":", 1)[0])
        self.claimed.discard(number)
        self.state.finish(number, graded.report, job.key.exercise, seconds=graded.wall_seconds)
        self._changed(number)

    def _replace(self, worker: _Worker) -> None:
        index = self.workers.index(worker)
        worker.stop()
        self.workers[index] = _start(worker.core)
        for job in worker.jobs:
            number = int(job.key.submission.split(":", 1)[0])
            self.claimed.discard(number)
            submission = self.state.get(number)
            if submission is not None and submission.attempts <= RETRIES:
                self.state.requeue(number)
            else:
                report = uniform_report(job.exercise, job.label, Verdict.GRADER_ERROR, DIED)
                self.state.finish(number, report, job.key.exercise, DIED)
                self._changed(number)

    def _changed(self, number: int) -> None:
        if self.on_change is not None:
            self.on_change(number)


class DaskGradingLoop(GradingLoop):
    """The same loop, its jobs graded on the Dask cluster `--cluster` names, as `grader batch --cluster`
    grades them (grader/batch/cluster.py): at most two per Dask worker in flight; a task Dask gave up on
    (its workers died on it) is recorded as an error with the reason."""

    def __init__(self, state: State, exercises: Exercises, address: str) -> None:
        from grader.batch.cluster import DaskRunner

        self.runner = DaskRunner(address)
        super().__init__(state, exercises, self.runner.workers)
        self.futures: dict[int, tuple[object, Job]] = {}

    def start(self) -> None:
        self.state.recover(RETRIES)
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.wake()
        if self.thread.is_alive():
            self.thread.join(timeout=10)
        self.runner.close()

    def _run(self) -> None:
        from multiprocessing.connection import wait

        while not self._stop.is_set():
            try:
                self._submit_queued()
                if self._wake_read in wait([self._wake_read], timeout=5):
                    os.read(self._wake_read, 4096)
                for number, (future, job) in list(self.futures.items()):
                    if future.done():  # type: ignore[attr-defined]
                        del self.futures[number]
                        self._collect(number, future, job)
            except Exception:  # noqa: BLE001 - the loop must outlive any one submission's trouble
                traceback.print_exc()
                time.sleep(1)

    def _submit_queued(self) -> None:
        from grader.batch.work import grade_job

        for number, job in self._claim(self.futures, lambda: len(self.futures) < 2 * self.size):
            future = self.runner.client.submit(grade_job, job, pure=False)
            future.add_done_callback(lambda _: self.wake())  # on the Dask client's thread
            self.futures[number] = future, job
            self._changed(number)

    def _collect(self, number: int, future: object, job: Job) -> None:
        try:
            graded: Graded = future.result()  # type: ignore[attr-defined]
        except Exception as error:  # noqa: BLE001 - e.g. KilledWorker
            reason = f"the Dask task failed: {type(error).__name__}: {error}"
            self.state.finish(number, uniform_report(job.exercise, job.label, Verdict.GRADER_ERROR, reason),
                              job.key.exercise, reason)
        else:
            self.state.finish(number, graded.report, job.key.exercise, seconds=graded.wall_seconds)
        future.release()  # type: ignore[attr-defined]
        self._changed(number)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
