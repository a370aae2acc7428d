"""A job graded where a worker runs it (a local worker process, or a task on a Dask worker): its hand-in
through `grade()`, timed, a grader bug on it a grader error rather than the end of the worker."""

from __future__ import annotations

import os
import resource
import socket
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from grader.grading import grade
from grader.model import Verdict
from grader.workers.job import Graded, Job, job_request, uniform_report

if TYPE_CHECKING:
    from grader.workers.sandboxes import WorkerSandboxes

# A process holds one sandbox uid and kills every process of that uid after each test, so it must grade
# one submission at a time, even in a Dask worker that was started with several threads.
_ONE_AT_A_TIME = threading.Lock()


def grade_job(job: Job, sandboxes: WorkerSandboxes | None = None) -> Graded:
    """`sandboxes`: a local worker's (fork servers where they can be had); None: the default backend."""
    def sandbox_cpu() -> float:
        return _children_cpu() + (sandboxes.cpu_seconds() if sandboxes is not None else 0.0)

    with _ONE_AT_A_TIME:
        started, before, own = time.monotonic(), sandbox_cpu(), _own_cpu()
        try:
            backend = sandboxes.backend(job.exercise, job.text) if sandboxes is not None else None
            report = grade(job.exercise, Path(job.label), job_request(job.label, job.private_paths),
                           handin=job.text, expected=job.expected, backend=backend)
        except Exception as error:  # noqa: BLE001 - a grader bug on one submission must not stop the class
            traceback.print_exc()  # to the worker's standard error, which is its caller's (or Dask's log)
            report = uniform_report(job.exercise, job.label, Verdict.GRADER_ERROR,
                                    f"internal error while grading: {type(error).__name__}: {error}")
        return Graded(job.key, report, sandbox_cpu() - before, time.monotonic() - started, worker_name(),
                      _own_cpu() - own)


def worker_name() -> str:
    return f"{_HOST}:{os.getpid()}"


_HOST = socket.gethostname()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _own_cpu() -> float:
    # The thread's own CPU: in a Dask worker, other threads (its event loop) are not this grading's.
    return time.thread_time()
