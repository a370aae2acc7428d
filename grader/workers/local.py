"""Local workers: processes of this machine (grader/workers/worker.py), each grading one job at a time.

Each is a fresh interpreter, so each takes a sandbox uid of its own; each dies with the process that started
the pool, even under SIGKILL; none is in the terminal's process group, so a Ctrl-C is the caller's alone."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import deque
from dataclasses import dataclass, field, replace
from multiprocessing import Pipe
from multiprocessing.connection import Connection, wait
from pathlib import Path

import grader
from grader.sandbox.reaping import become_subreaper
from grader.workers.job import Done, Graded, Job
from grader.workers.pool import DIED, Pool


@dataclass
class Worker:
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


class LocalPool(Pool):
    def __init__(self, workers: int, data_values: bool = False) -> None:
        super().__init__()
        # What a worker leaves when it is stopped (its sandboxes, dying with it) comes back to us, to be
        # reaped before we return, never to init.
        become_subreaper()
        self.size = workers
        self.workers: list[Worker] = []
        self.cores = cores_for(workers)
        self.data_values = data_values  # a course's environment: workers load numpy and pandas at start
        self.queue: deque[Job] = deque()  # submitted, not sent to a worker yet

    def start(self) -> None:
        while len(self.workers) < self.size:
            self.workers.append(start_worker(self.cores[len(self.workers)], self.data_values))

    def describe(self) -> str:
        from grader.workers.sandboxes import describe

        return f"{self.size} local worker process{'es' if self.size != 1 else ''}, {describe()}"

    def submit(self, job: Job) -> None:
        self.queue.append(job)

    def waiting(self) -> int:
        return len(self.queue) + sum(max(0, len(w.jobs) - 1) for w in self.workers)

    def alive(self) -> int:
        # Read from another thread than the pool's: a copy of the list, each process asked without waiting.
        return sum(worker.process.poll() is None for worker in list(self.workers))

    def busy(self) -> bool:
        return bool(self.queue) or any(w.jobs for w in self.workers)

    def wait(self, timeout: float | None = None) -> list[Done]:
        self.start()
        self._hand_out()
        # Every worker's end is watched, an idle one's too: it is replaced before a job is lost on it.
        watched = list(self.workers)
        ready = set(wait([self._wake_read, *(w.conn for w in watched if w.jobs), *(w.pidfd for w in watched)],
                         timeout))
        if self._wake_read in ready:
            self._woken()
        done: list[Done] = []
        for worker in watched:
            if worker.jobs and worker.conn in ready:
                try:
                    graded: Graded = worker.conn.recv()
                except (EOFError, OSError):
                    pass  # it died while answering: handled below
                else:
                    job = worker.jobs.popleft()
                    self._hand_out()  # its next job first: the caller's bookkeeping can wait, the worker not
                    done.append(Done(job, graded))
                    continue
            elif worker.pidfd not in ready:
                continue
            worker.stop()
            self.workers[self.workers.index(worker)] = start_worker(worker.core, self.data_values)
            for job in reversed(worker.jobs):  # the first it held goes first again
                lost = self._lost(job, DIED)
                if lost is not None:
                    done.append(lost)
        self._hand_out()
        return done

    def _again(self, job: Job) -> None:
        self.queue.appendleft(job)

    def _hand_out(self) -> None:
        """A job to every idle worker; while plenty are left, a second one too, so that no worker waits
        for us between two jobs. Near the end, one each, so that no worker sits on a job another could run
        (a quick one behind a looping one there would wait for its timeout while another worker idles)."""
        for depth in (1, 2):
            for worker in self.workers:
                if self.queue and len(worker.jobs) < depth and (depth == 1 or len(self.queue) > len(self.workers)):
                    job = self.queue.popleft()
                    try:
                        worker.send(job)
                    except OSError:
                        pass  # it died: its pidfd says so, and the job is tried again with the others it held

    def stop(self) -> list[Job]:
        # A job second in line on a worker was not begun either.
        unbegun = [job for w in self.workers for job in list(w.jobs)[1:]] + list(self.queue)
        for worker in self.workers:
            worker.stop()  # its sandbox dies with it (PR_SET_PDEATHSIG)
        self.workers = []
        self.queue.clear()
        return unbegun


def cores_for(workers: int) -> list[int | None]:
    """A core of its own for each worker while there are enough. A worker and its sandbox take turns (a
    request, a reply) and then stay on one core with warm caches; left to the scheduler, the wake-ups of
    two such pairs collide on one core while the other idles (benchmarks/batch.py shows it as waiting
    inside gradings). More workers than cores: the scheduler places them."""
    cores = sorted(os.sched_getaffinity(0))
    if workers > len(cores):
        return [None] * workers
    return list(cores[:workers])


# Out of the terminal's process group (Ctrl-C reaches the caller alone); Python 3.10 has no process_group.
_OWN_GROUP: dict[str, object] = {"process_group": 0} if sys.version_info >= (3, 11) else {"start_new_session": True}


def start_worker(core: int | None, data_values: bool = False) -> Worker:
    ours, theirs = Pipe()
    # The worker imports grader from where this process did, installed or not.
    source = str(Path(grader.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (source, os.environ.get("PYTHONPATH", "")) if p)
    process = subprocess.Popen(
        [sys.executable, "-m", "grader.workers.worker", str(theirs.fileno()), str(os.getpid()),
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
    return Worker(process, ours, os.pidfd_open(process.pid), core)
