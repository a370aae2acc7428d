"""The local pool's promises: a worker that dies is replaced and its submission tried once more, then
recorded as a grader error; closing the pool leaves no process behind."""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from grader.course import Course
from grader.model import Verdict
from grader.workers.job import Done, GradingKey, Job, pack, resolve
from grader.workers.local import LocalPool, cores_for
from tests.batch.classroom import write_course

# Sleeps while it loads (no CPU, well inside the wall limit), then answers every test right.
SLEEPY = "import time\ntime.sleep(1.5)\n\ndef add(a, b):\n    return a + b\n"


@pytest.fixture
def sleepy_job(tmp_path: Path) -> Job:
    exercise, expected, digest = resolve(Course.at(write_course(tmp_path)).load("add"))
    return Job(GradingKey("sleepy", digest, "test", True), pack(exercise, expected), "ada/add.py", SLEEPY, ())


def kill_workers_while_busy(pool: LocalPool, times: int, killed: list[int]) -> threading.Thread:
    """Kill the worker holding a job, `times` times, each 0.3 s after it got the job."""

    def killer() -> None:
        deadline = time.monotonic() + 60
        while len(killed) < times and time.monotonic() < deadline:
            busy = [w for w in list(pool.workers) if w.jobs and w.process.pid not in killed]
            if busy:
                time.sleep(0.3)
                killed.append(busy[0].process.pid)
                os.kill(busy[0].process.pid, signal.SIGKILL)
            time.sleep(0.01)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    return thread


def graded(pool: LocalPool, jobs: list[Job]) -> list[Done]:
    for job in jobs:
        pool.submit(job)
    return list(pool.drain())


def run(pool: LocalPool, job: Job, kills: int) -> tuple[list[Done], list[int]]:
    killed: list[int] = []
    thread = kill_workers_while_busy(pool, kills, killed)
    try:
        results = graded(pool, [job])
    finally:
        thread.join(timeout=60)
        workers = [w.process for w in pool.workers]
        pool.close()
    assert all(process.poll() is not None for process in workers)  # closing leaves no worker behind
    return results, killed


def test_a_worker_that_dies_is_replaced_and_its_submission_graded_again(sleepy_job: Job) -> None:
    results, killed = run(LocalPool(1), sleepy_job, kills=1)
    assert len(killed) == 1 and len(results) == 1
    assert results[0].graded.report.verdict == Verdict.PASSED and results[0].graded.report.score == 4
    assert not results[0].graded.worker.endswith(f":{killed[0]}")


def test_a_submission_whose_worker_dies_twice_is_a_grader_error(sleepy_job: Job) -> None:
    results, killed = run(LocalPool(1), sleepy_job, kills=2)
    assert len(killed) == 2 and len(results) == 1
    report = results[0].graded.report
    assert report.verdict == Verdict.GRADER_ERROR
    assert {o.feedback for o in report.outcomes} == {"the grading worker process died on this submission, twice"}
    assert results[0].failure == "the grading worker process died on this submission, twice"


def test_each_worker_runs_on_a_core_of_its_own_and_a_replacement_keeps_it(sleepy_job: Job) -> None:
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        pytest.skip("needs two cores")
    second = replace(sleepy_job, key=replace(sleepy_job.key, submission="sleepy-2"), label="bob/add.py")
    pool = LocalPool(2)
    killed: list[int] = []
    thread = kill_workers_while_busy(pool, 1, killed)
    try:
        results = graded(pool, [sleepy_job, second])
        masks = [os.sched_getaffinity(w.process.pid) for w in pool.workers]
    finally:
        thread.join(timeout=60)
        pool.close()
    assert len(killed) == 1 and {r.graded.report.verdict for r in results} == {Verdict.PASSED}
    assert masks == [{cores[0]}, {cores[1]}]


def test_more_workers_than_cores_are_left_to_the_scheduler() -> None:
    cores = sorted(os.sched_getaffinity(0))
    assert cores_for(len(cores)) == cores
    assert cores_for(len(cores) + 1) == [None] * (len(cores) + 1)
