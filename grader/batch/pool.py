"""The local runner: worker processes, each grading one submission at a time, started fresh ('spawn') so
that each takes a sandbox uid of its own, and tied to the batch so that none outlives it."""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from grader.batch.work import Graded, Job, grade_job, uniform_report
from grader.model import Verdict
from grader.sandbox import linux

RETRIES = 1  # a job whose worker died is given to a new worker once more, then recorded as a grader error


def default_workers() -> int:
    return len(os.sched_getaffinity(0))


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    job: Job | None = None


class LocalPool:
    def __init__(self, workers: int) -> None:
        self.size = workers
        self.workers: list[_Worker] = []
        self.context = multiprocessing.get_context("spawn")

    def describe(self) -> str:
        return f"{self.size} local worker process{'es' if self.size != 1 else ''}"

    def results(self, jobs: list[Job]) -> Iterator[Graded]:
        """Every job's grading, in the order they finish."""
        queue, tries = deque(jobs), {job.key: 0 for job in jobs}
        while len(self.workers) < min(self.size, len(jobs)):
            self.workers.append(self._start())
        while queue or any(w.job for w in self.workers):
            for worker in self.workers:
                if worker.job is None and queue:
                    worker.job = queue.popleft()
                    worker.conn.send(worker.job)
            busy = [w for w in self.workers if w.job is not None]
            ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
            for worker in busy:
                job = worker.job
                assert job is not None
                if worker.conn in ready:
                    try:
                        graded: Graded = worker.conn.recv()
                    except (EOFError, OSError):
                        pass  # it died while answering: handled below
                    else:
                        worker.job = None
                        yield graded
                        continue
                elif worker.process.sentinel not in ready:
                    continue
                self._replace(worker)
                tries[job.key] += 1
                if tries[job.key] <= RETRIES:
                    queue.appendleft(job)
                else:
                    report = uniform_report(job.exercise, job.label, Verdict.GRADER_ERROR,
                                            "the grading worker process died on this submission, twice")
                    yield Graded(job.key, report, 0.0, 0.0, "-")

    def close(self) -> None:
        """Stop every worker now: a job in progress is abandoned (the next run grades it)."""
        for worker in self.workers:
            worker.process.kill()  # its sandbox dies with it (PR_SET_PDEATHSIG)
        for worker in self.workers:
            worker.process.join()
            worker.conn.close()
        self.workers = []

    def _start(self) -> _Worker:
        ours, theirs = self.context.Pipe()
        process = self.context.Process(target=worker_main, args=(theirs, os.getpid()), daemon=True,
                                       name="grader-batch-worker")
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def _replace(self, worker: _Worker) -> None:
        worker.process.kill()
        worker.process.join()
        worker.conn.close()
        fresh = self._start()
        worker.process, worker.conn, worker.job = fresh.process, fresh.conn, None


def worker_main(conn: Connection, parent: int) -> None:
    # Die with the batch, even when it is killed with SIGKILL; then the sandbox dies with us in turn.
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        return
    os.setpgid(0, 0)  # a Ctrl-C in the terminal is for the batch to handle, not for its workers
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        conn.send(grade_job(job))
