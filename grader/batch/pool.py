"""The local runner: worker processes (grader/batch/worker.py), each grading one submission at a time.

Each is a fresh interpreter, so each takes a sandbox uid of its own; each dies with the batch, even under
SIGKILL; none is in the terminal's process group, so a Ctrl-C is the batch's alone to handle."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from multiprocessing import Pipe
from multiprocessing.connection import Connection, wait
from pathlib import Path

import grader
from grader.batch.work import Graded, Job, uniform_report
from grader.model import Verdict
from grader.sandbox.reaping import become_subreaper

RETRIES = 1  # a job whose worker died is given to a new worker once more, then recorded as a grader error


def default_workers() -> int:
    return len(os.sched_getaffinity(0))


@dataclass
class _Worker:
    process: subprocess.Popen[bytes]
    conn: Connection
    pidfd: int  # readable once the process has ended
    core: int | None  # the core it and its sandboxes run on; None: wherever the scheduler puts them
    jobs: deque[Job] = field(default_factory=deque)  # sent, not answered yet, oldest first
    exercises: set[tuple[int, int]] = field(default_factory=set)  # the packed exercises it has been sent

    def send(self, job: Job) -> None:
        """The job, its packed exercise only the first time: an exercise with big expected answers is
        megabytes, and a pipe write that size waits for a busy worker while the others starve."""
        self.jobs.append(job)
        # By content (a bytes object keeps its hash once made): the pool outlives one call's jobs.
        token = (len(job.packed_exercise), hash(job.packed_exercise))
        first = token not in self.exercises
        self.exercises.add(token)
        self.conn.send((replace(job, packed_exercise=b""), token, job.packed_exercise if first else None))

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        self.conn.close()
        os.close(self.pidfd)


class LocalPool:
    def __init__(self, workers: int, data_values: bool = False) -> None:
        # What a worker leaves when it is stopped (its sandboxes, dying with it) comes back to us, to be
        # reaped before the batch returns, never to init.
        become_subreaper()
        self.size = workers
        self.workers: list[_Worker] = []
        self.cores = cores_for(workers)
        self.data_values = data_values  # a course's environment: workers load numpy and pandas at start

    def start(self, count: int | None = None) -> None:
        """Start the workers now (all of them, or `count`), before any job: they load while the caller works."""
        while len(self.workers) < min(self.size, self.size if count is None else count):
            self.workers.append(_start(self.cores[len(self.workers)], self.data_values))

    def describe(self) -> str:
        from grader.batch.sandboxes import describe

        return f"{self.size} local worker process{'es' if self.size != 1 else ''}, {describe()}"

    def results(self, jobs: list[Job]) -> Iterator[Graded]:
        """Every job's grading, in the order they finish."""
        queue, tries = deque(jobs), {job.key: 0 for job in jobs}
        self.start(len(jobs))
        while queue or any(w.jobs for w in self.workers):
            self._hand_out(queue)
            busy = [w for w in self.workers if w.jobs]
            ready = set(wait([w.conn for w in busy] + [w.pidfd for w in busy]))
            for worker in busy:
                if worker.conn in ready:
                    try:
                        graded: Graded = worker.conn.recv()
                    except (EOFError, OSError):
                        pass  # it died while answering: handled below
                    else:
                        worker.jobs.popleft()
                        yield graded
                        continue
                elif worker.pidfd not in ready:
                    continue
                worker.stop()
                self.workers[self.workers.index(worker)] = _start(worker.core, self.data_values)
                for job in reversed(worker.jobs):
                    tries[job.key] += 1
                    if tries[job.key] <= RETRIES:
                        queue.appendleft(job)
                    else:
                        report = uniform_report(job.exercise, job.label, Verdict.GRADER_ERROR,
                                                "the grading worker process died on this submission, twice")
                        yield Graded(job.key, report, 0.0, 0.0, "-")

    def _hand_out(self, queue: deque[Job]) -> None:
        """A job to every idle worker; while plenty are left, a second one too, so that no worker waits
        for us between two jobs. Near the end, one each, so that no worker sits on a job another could run."""
        for depth in (1, 2):
            for worker in self.workers:
                if queue and len(worker.jobs) < depth and (depth == 1 or len(queue) > len(self.workers)):
                    worker.send(queue.popleft())

    def close(self) -> None:
        """Stop every worker now: a job in progress is abandoned (the next run grades it)."""
        for worker in self.workers:
            worker.stop()  # its sandbox dies with it (PR_SET_PDEATHSIG)
        self.workers = []


def cores_for(workers: int) -> list[int | None]:
    """A core of its own for each worker while there are enough. A worker and its sandbox take turns (a
    request, a reply) and then stay on one core with warm caches; left to the scheduler, the wake-ups of
    two such pairs collide on one core while the other idles (benchmarks/batch.py shows it as waiting
    inside gradings). More workers than cores: the scheduler places them."""
    cores = sorted(os.sched_getaffinity(0))
    if workers > len(cores):
        return [None] * workers
    return list(cores[:workers])


# Out of the terminal's process group (Ctrl-C reaches the batch alone); Python 3.10 has no process_group.
_OWN_GROUP: dict[str, object] = {"process_group": 0} if sys.version_info >= (3, 11) else {"start_new_session": True}


def _start(core: int | None, data_values: bool = False) -> _Worker:
    ours, theirs = Pipe()
    # The worker imports grader from where this process did, installed or not.
    source = str(Path(grader.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (source, os.environ.get("PYTHONPATH", "")) if p)
    process = subprocess.Popen(
        [sys.executable, "-m", "grader.batch.worker", str(theirs.fileno()), str(os.getpid()),
         *(["--data-values"] if data_values else [])],
        pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": path},
        **_OWN_GROUP)
    theirs.close()
    if core is not None:
        try:  # as it starts; its sandboxes inherit the mask
            os.sched_setaffinity(process.pid, {core})
        except ProcessLookupError:  # it died at once: its replacement takes the core
            pass
        except OSError:  # the core went offline or the mask changed: the scheduler places it
            core = None
    return _Worker(process, ours, os.pidfd_open(process.pid), core)
