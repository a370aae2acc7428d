"""`grader serve --cluster`: the same gradings on a Dask cluster the server starts itself (local:N), and
several servers sharing one PostgreSQL database, one state folder and one Dask cluster whose scheduler and
workers are processes of their own: each submission claimed once, nothing lost when a server and a Dask
worker are killed in the middle of a rush."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.server.conftest import ADD, WRONG, Served
from tests.server.test_postgres import database  # noqa: F401 - a fixture
from tests.server.test_restart import SLOW, burner, wait_for

pytest.importorskip("distributed", reason="--cluster needs the dask extra: pip install 'yaml-grader[dask]'")


def test_a_server_grades_on_a_dask_cluster(served: Served) -> None:
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--cluster", "local:1")
    assert served.call("GET", "/api/health", staff).body["workers"] == 1
    right, wrong = (served.submit(alice, "add", code).body["id"] for code in (ADD, WRONG))
    assert served.wait(alice, right, timeout=300)["report"]["verdict"] == "passed"
    assert served.wait(alice, wrong, timeout=300)["report"]["verdict"] == "wrong_answer"


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """A Dask scheduler and two single-threaded workers, each a process of its own started with Dask's own
    command line, as on three machines: (the scheduler's address, the workers' processes)."""
    dask = Path(sys.executable).with_name("dask")
    found = tmp_path / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    processes = [subprocess.Popen([dask, "scheduler", "--port", "0", "--no-dashboard", "--scheduler-file", found],
                                  **quiet)]  # type: ignore[call-overload]
    try:
        wait_for(lambda: found.is_file() and '"address"' in found.read_text(), timeout=60)  # written whole
        processes += [subprocess.Popen([dask, "worker", "--scheduler-file", found, "--nthreads", "1", "--no-nanny",
                                        "--no-dashboard"], **quiet) for _ in range(2)]  # type: ignore[call-overload]
        yield json.loads(found.read_text())["address"], processes[1:]
    finally:
        for process in processes:
            process.kill()
            process.wait()


def test_two_servers_on_one_database_and_one_dask_cluster_lose_nothing_when_a_server_and_a_worker_die(
        served: Served, database: str, dask_cluster: tuple[str, list[subprocess.Popen[bytes]]]) -> None:
    address, dask_workers = dask_cluster
    (served.exercises / "slow.yaml").write_text(SLOW)
    token = run_cli("serve", "token", "alice", "--state", served.state, "--database", database)
    alice = token.stdout.strip()
    served.start("--cluster", address, "--database", database, "--name", "one")
    other = Served(served.root, served.state, served.exercises)
    other.start("--cluster", address, "--database", database, "--name", "two")
    try:
        numbers = [(served if n % 2 else other).submit(alice, "slow", burner(0.3, n)).body["id"] for n in range(6)]
        wait_for(lambda: sum(status == "running" for status, _ in rows(database).values()) >= 2)
        served.kill()  # SIGKILL, mid-rush: what it had claimed stays `running`, claimed by "one"
        os.kill(dask_workers[0].pid, signal.SIGKILL)  # and a Dask worker, whatever it was grading
        served.start()  # the same name: it takes back its own rows
        for number in numbers:
            assert other.wait(alice, number, timeout=300)["report"]["verdict"] == "passed"
        after = rows(database)
        assert sorted(after) == sorted(numbers) and {status for status, _ in after.values()} == {"done"}
        # Claimed once, by one server; once more only if its server, or the worker grading it, died.
        assert all(attempts in (1, 2) for _, attempts in after.values())
        # At most what the killed server held (two slots on each of two workers) and the killed worker's job,
        # which may have been the other server's.
        assert sum(attempts == 2 for _, attempts in after.values()) <= 5
    finally:
        other.stop()


def rows(database: str) -> dict[int, tuple[str, int]]:
    import psycopg

    with psycopg.connect(database) as db:
        return {n: (status, attempts) for n, status, attempts in
                db.execute("SELECT id, status, attempts FROM submissions WHERE exercise = 'slow'").fetchall()}
