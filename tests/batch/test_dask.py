"""The same class on a Dask distributed cluster: a LocalCluster started by the test (reached as
tcp://HOST:PORT), and one the batch starts itself (local:N). The gradebooks are identical to the local run's."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.batch.classroom import write_class, write_course
from tests.batch.conftest import GradedClass, batch

HELPER = Path(__file__).with_name("dask_cluster.py")


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a LocalCluster of two single-threaded worker processes."""
    process = subprocess.Popen([sys.executable, str(HELPER), "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    try:
        assert process.stdout is not None and process.stdin is not None
        address = process.stdout.readline().strip()
        assert address.startswith("tcp://"), address
        yield address
        process.stdin.close()
        process.wait(timeout=60)
    finally:
        process.kill()
        process.wait()


def per_test_verdicts(out: Path) -> dict[tuple[str, str], list[tuple[str, float]]]:
    export = json.loads((out / "grades.json").read_text())
    return {(s["student"], e): [(t["verdict"], t["points"]) for t in cell["tests"]]
            for s in export["students"] for e, cell in s["exercises"].items()}


def test_a_dask_cluster_grades_the_class_to_the_same_gradebook_as_local_workers(graded_class: GradedClass,
                                                                               scheduler: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = batch(graded_class.submissions, "--exercises", graded_class.exercises, "--out", out,
                   "--cluster", scheduler)
    assert result.returncode == 0, result.stderr
    assert (out / "gradebook.csv").read_bytes() == (graded_class.out / "gradebook.csv").read_bytes()
    assert per_test_verdicts(out) == per_test_verdicts(graded_class.out)
    assert "2 workers of the Dask cluster at tcp://" in " ".join(result.stdout.split())
    with sqlite3.connect(out / "results.sqlite") as db:
        workers = {w for (w,) in db.execute("SELECT DISTINCT worker FROM gradings WHERE worker != '-'")}
    assert len(workers) == 2  # both worker processes took submissions (each name is host:pid)


def test_cluster_local_n_starts_a_dask_cluster_of_its_own(tmp_path: Path) -> None:
    exercises = write_course(tmp_path)
    write_class(tmp_path / "class", count=6)
    local = batch(tmp_path / "class", "--exercises", exercises, "--out", tmp_path / "local", "--workers", 1)
    dask = batch(tmp_path / "class", "--exercises", exercises, "--out", tmp_path / "dask", "--cluster", "local:2")
    assert (local.returncode, dask.returncode) == (0, 0), dask.stderr
    assert "of a local Dask cluster" in " ".join(dask.stdout.split())
    assert (tmp_path / "dask" / "gradebook.csv").read_bytes() == (tmp_path / "local" / "gradebook.csv").read_bytes()


def test_a_dask_pool_sends_a_packed_exercise_to_each_worker_once_and_a_changed_one_again(tmp_path: Path) -> None:
    from grader.course import load_exercise
    from grader.grading import read_submission
    from grader.workers.cluster import DaskPool
    from grader.workers.job import GradingKey, Job, pack, resolve

    exercises = write_course(tmp_path)
    (tmp_path / "add.py").write_text("def add(a, b):\n    return a + b\n")

    def jobs(count: int) -> list[Job]:
        exercise, expected, digest = resolve(load_exercise(exercises / "add.yaml"))
        packed = pack(exercise, expected)
        handin = read_submission(tmp_path / "add.py", exercise)
        return [Job(GradingKey(handin.digest(), digest, "test", True), packed, f"s{n}/add.py", handin, ())
                for n in range(count)]

    pool = DaskPool("local:2")
    try:
        first = jobs(4)
        for job in first:
            pool.submit(job)
        assert [done.graded.report.verdict.value for done in pool.drain()] == ["passed"] * 4
        # One copy on the cluster, on every worker: the tasks name it, and carry only their hand-ins.
        (held,) = pool.exercises.values()
        assert len(pool.client.who_has([held])[held.key]) == 2
        # Each worker forked its sandboxes from a fork server it keeps (where the layers allow one), as a
        # local worker does: not an interpreter started anew per task.
        from grader.sandbox.forks import refusal
        from grader.sandbox.isolation import detect

        started = pool.client.run(lambda dask_worker: sum(
            server.starts for server in dask_worker.plugins["grader-sandboxes"].sandboxes.servers.values()))
        assert sum(started.values()) >= 1 if not refusal(detect()) else set(started.values()) == {0}
        # A changed spec (a regrade) is another exercise: sent again, and graded by its own expectations.
        text = (exercises / "add.yaml").read_text()
        (exercises / "add.yaml").write_text(text.replace("expect: 3", "expect: 4"))
        changed = jobs(1)[0]
        assert changed.packed_exercise != first[0].packed_exercise
        pool.submit(changed)
        (done,) = pool.drain()
        assert done.graded.report.verdict.value == "wrong_answer"
        assert len(pool.exercises) == 2
    finally:
        pool.close()


def test_two_pools_on_one_cluster_see_each_others_jobs_so_neither_claims_one_to_wait_there(
        scheduler: str, tmp_path: Path) -> None:
    """Servers sharing a cluster share one queue (their database's): a pool counts every task the cluster
    holds, not only its own, so a second server claims nothing while the first one's jobs fill the workers."""
    from grader.course import Course
    from grader.workers.cluster import DaskPool
    from grader.workers.job import GradingKey, Job, pack, resolve
    from tests.batch.test_pool import SLEEPY

    def seen_by_both() -> bool:  # a submit reaches the scheduler a moment after it returns
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if second.waiting() >= 2 and first.waiting() >= 2:
                return True
            time.sleep(0.05)
        return False

    exercise, expected, digest = resolve(Course.at(write_course(tmp_path)).load("add"))
    packed = pack(exercise, expected)
    first, second = DaskPool(scheduler), DaskPool(scheduler)
    try:
        assert second.waiting() == 0
        for n in range(4):  # two running (one per worker), two held for them
            first.submit(Job(GradingKey(f"sleepy{n}", digest, "test", True), packed, f"s{n}/add.py", SLEEPY, ()))
        assert seen_by_both()
        assert [d.graded.report.verdict.value for d in first.drain()] == ["passed"] * 4
        assert second.waiting() == 0
    finally:
        first.close()
        second.close()


def test_the_cluster_s_workers_are_told_what_grading_needs_and_dask_knows_every_key(scheduler: str) -> None:
    """grader/workers/dask.yaml: Dask's dashboard feeds off on the workers (a profiler sampling every task
    each 10 ms, a system monitor each 500 ms). A misspelt key would be ignored silently: each is one of
    Dask's own."""
    import dask
    from distributed import Client

    from grader.workers.cluster import grading_config

    wanted = grading_config()
    assert wanted["distributed.worker.profile.enabled"] is False
    missing = object()
    assert [key for key in wanted if dask.config.get(key, default=missing) is missing] == []
    with Client(scheduler) as client:  # type: ignore[no-untyped-call]
        told = client.run(lambda: {key: dask.config.get(key) for key in wanted})
    assert len(told) == 2 and all(seen == wanted for seen in told.values()), told
