"""One unit of batch work, run in a worker process (local or Dask): a submission through `grade()`."""

from __future__ import annotations

import functools
import os
import pickle
import resource
import socket
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from grader.grading import GradingRequest, Pace, Reader, grade
from grader.handins.base import Handin
from grader.model import Exercise, Outcome, Report, Verdict
from grader.records import record

if TYPE_CHECKING:
    from grader.batch.sandboxes import WorkerSandboxes


@record
class GradingKey:
    """What a grading depends on, and nothing else: identical submissions share one grading."""

    submission: str  # sha256 of the text, or "missing", or "refused:..." / "unreadable:..." digests
    exercise: str  # sha256 of the spec and its expected values
    grader: str  # the grader's version
    run_all: bool  # kept for the store's key: a batch runs every test, whatever --all says


@record
class Job:
    key: GradingKey
    packed_exercise: bytes  # pack(exercise, expected): its expected answers with it, so workers need no reference
    label: str  # student/file, as reports show it
    text: Handin  # what was handed in, read in the main process: the worker reads no student file
    private_paths: tuple[Path, ...]

    @property
    def exercise(self) -> Exercise:
        return _unpack(self.packed_exercise)[0]

    @property
    def expected(self) -> dict[str, object]:
        return _unpack(self.packed_exercise)[1]


def pack(exercise: Exercise, expected: dict[str, object]) -> bytes:
    """An exercise and its expected answers as a job carries them: pickled once for all its jobs, not once
    per job sent (an exercise with its expected boards is ~50 KB and ~1 ms to pickle and unpickle)."""
    return pickle.dumps((exercise, expected), protocol=pickle.HIGHEST_PROTOCOL)


@functools.lru_cache(maxsize=32)
def _unpack(packed: bytes) -> tuple[Exercise, dict[str, object]]:
    unpacked: tuple[Exercise, dict[str, object]] = pickle.loads(packed)
    return unpacked


def batch_request(label: str, private_paths: tuple[Path, ...] = ()) -> GradingRequest:
    """What a batch asks of `grade`: a grade (every test runs) that staff read."""
    return GradingRequest(Pace.EVERY_TEST, Reader.STAFF, private_paths=private_paths, label=label)


@record
class Graded:
    key: GradingKey
    report: Report
    cpu_seconds: float  # CPU of the sandboxed processes, measured by the kernel (RUSAGE_CHILDREN)
    wall_seconds: float
    worker: str
    grader_cpu_seconds: float = 0.0  # the worker's own CPU for it: checks, sandbox set-up, reading results


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
            report = grade(job.exercise, Path(job.label), batch_request(job.label, job.private_paths),
                           handin=job.text, expected=job.expected, backend=backend)
        except Exception as error:  # noqa: BLE001 - a grader bug on one submission must not stop the class
            traceback.print_exc()  # to the worker's standard error, which is the batch's (or Dask's log)
            report = uniform_report(job.exercise, job.label, Verdict.GRADER_ERROR,
                                    f"internal error while grading: {type(error).__name__}: {error}")
        return Graded(job.key, report, sandbox_cpu() - before, time.monotonic() - started, worker_name(),
                      _own_cpu() - own)


def uniform_report(exercise: Exercise, label: str, verdict: Verdict, feedback: str) -> Report:
    """Every test with the same verdict: a missing file, a refused one, a worker that died."""
    outcomes = tuple(Outcome(test=t.name, verdict=verdict, points=0.0, max_points=t.points, hidden=t.hidden,
                             big=t.big, feedback=feedback) for t in exercise.tests)
    return Report(exercise.id, label, outcomes)


def worker_name() -> str:
    return f"{_HOST}:{os.getpid()}"


_HOST = socket.gethostname()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _own_cpu() -> float:
    # The thread's own CPU: in a Dask worker, other threads (its event loop) are not this grading's.
    return time.thread_time()
