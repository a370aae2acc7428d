"""The pool's one public face, whichever workers stand behind it (local processes or a Dask cluster), and
its one retry policy. `grader batch` and `grader serve` both grade through it; it knows nothing of who asked.

    pool = open_pool(workers, cluster, exercises_dir)
    pool.submit(job)               # any number; the pool keeps them in order
    for done in pool.wait(5): ...  # the jobs that ended since (a grading, or a failure with its reason)
    for done in pool.drain(): ...  # every job submitted, as each ends
    pool.stop()                    # now: the jobs no worker began come back, to be queued elsewhere
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import replace

from grader.model import Verdict
from grader.workers.job import Done, Graded, Job, uniform_report

# The one retry policy: a job whose try was lost (its worker died under it, Dask gave up on it) is tried
# once more, then recorded as a grader error with the reason. A job's `tries` counts tries spent before it
# was submitted (a server that died while grading it), so a restart does not buy a job more tries.
RETRIES = 1
DIED = "the grading worker process died on this submission, twice"


def default_workers() -> int:
    return len(os.sched_getaffinity(0))


class Pool(ABC):
    size: int  # workers: how many jobs run at once
    # Called before a lost job is tried again, with the job as it will be tried; False: the caller has it
    # graded elsewhere now (another server claimed it), and the pool forgets it.
    on_retry: Callable[[Job], bool] | None = None

    def __init__(self) -> None:
        # Written from any thread (wake), read by the pool's own (wait): a wait ends at once.
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_write, False)

    @abstractmethod
    def describe(self) -> str: ...

    def start(self) -> None:
        """Start the workers now, before any job: they load while the caller works."""

    @abstractmethod
    def submit(self, job: Job) -> None:
        """Queue a job, behind those submitted before it."""

    @abstractmethod
    def waiting(self) -> int:
        """Jobs submitted that no worker has begun (or that wait behind a busy one)."""

    @abstractmethod
    def alive(self) -> int:
        """Workers that can take a job now (a readiness probe's question): running, or reachable."""

    @abstractmethod
    def busy(self) -> bool:
        """Some job submitted has not ended."""

    @abstractmethod
    def wait(self, timeout: float | None = None) -> list[Done]:
        """The jobs that ended, as soon as one does (or `wake()` is called, or `timeout` passes: then none)."""

    def drain(self) -> Iterator[Done]:
        """Every job submitted, as each ends."""
        while self.busy():
            yield from self.wait()

    def wake(self) -> None:
        """End a `wait` now (any thread): the caller has new work to submit."""
        try:
            os.write(self._wake_write, b"x")
        except BlockingIOError:
            pass  # a wake-up is already pending

    @abstractmethod
    def stop(self) -> list[Job]:
        """Stop every worker now: a job in progress is abandoned. The jobs no worker began, to queue elsewhere."""

    def close(self) -> None:
        self.stop()
        if self._wake_read >= 0:
            os.close(self._wake_read)
            os.close(self._wake_write)
            self._wake_read = self._wake_write = -1

    def _woken(self) -> None:
        try:
            os.read(self._wake_read, 4096)
        except BlockingIOError:
            pass

    def _lost(self, job: Job, reason: str) -> Done | None:
        """A try of `job` ended without a grading: tried again (None) while it has tries left, else its failure."""
        again = replace(job, tries=job.tries + 1)
        if again.tries > RETRIES:
            return failed(job, reason)
        if self.on_retry is None or self.on_retry(again):
            self._again(again)
        return None

    @abstractmethod
    def _again(self, job: Job) -> None:
        """Run this job next, ahead of those waiting."""


def failed(job: Job, reason: str) -> Done:
    report = uniform_report(job.exercise, job.label, Verdict.GRADER_ERROR, reason)
    return Done(job, Graded(job.key, report, 0.0, 0.0, "-"), reason)
