"""`grader serve --database postgresql://...`: the same state in a throwaway PostgreSQL cluster (the
system's initdb, run as the postgres user, reached on a Unix socket only), shared by two servers at once:
every submission is graded once, by one of them."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.server.conftest import ADD, WRONG, Served
from tests.server.test_restart import SLOW, burner

POSTGRES_BIN = Path("/usr/lib/postgresql")


def _binaries() -> Path | None:
    found = sorted(POSTGRES_BIN.glob("*/bin/initdb"))
    return found[-1].parent if found else None


@pytest.fixture
def database() -> Iterator[str]:
    binaries = _binaries()
    if binaries is None or shutil.which("runuser") is None:
        pytest.skip("no PostgreSQL server installed (apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="grader-pg-"))
    shutil.chown(folder, "postgres", "postgres")
    as_postgres = ["runuser", "-u", "postgres", "--"]
    subprocess.run([*as_postgres, binaries / "initdb", "-D", folder / "data", "-A", "trust", "-U", "grader"],
                   check=True, capture_output=True)
    server = subprocess.Popen([*as_postgres, binaries / "postgres", "-D", folder / "data", "-k", folder,
                               "-c", "listen_addresses=", "-p", "5499"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        url = f"postgresql://grader@/postgres?host={folder}&port=5499"
        deadline = time.monotonic() + 60
        while subprocess.run([binaries / "pg_isready", "-h", folder, "-p", "5499"], capture_output=True).returncode:
            assert time.monotonic() < deadline, "PostgreSQL did not start"
            time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


def test_two_servers_share_one_postgres_database_and_grade_each_submission_once(served: Served,
                                                                                 database: str) -> None:
    (served.exercises / "slow.yaml").write_text(SLOW)
    token = run_cli("serve", "token", "alice", "--state", served.state, "--database", database)
    assert token.returncode == 0, token.stderr
    alice = token.stdout.strip()
    served.start("--workers", "1", "--database", database, "--name", "one")
    other = Served(served.root, served.state, served.exercises)
    other.start("--workers", "1", "--database", database, "--name", "two")
    try:
        right = served.submit(alice, "add", ADD).body["id"]
        assert other.wait(alice, right)["report"]["verdict"] == "passed"  # either server answers for both
        wrong = other.submit(alice, "add", WRONG).body["id"]
        assert served.wait(alice, wrong)["report"]["verdict"] == "wrong_answer"
        numbers = [(served if n % 2 else other).submit(alice, "slow", burner(0.1, n)).body["id"] for n in range(6)]
        for number in numbers:
            assert served.wait(alice, number)["report"]["verdict"] == "passed"
        import psycopg

        with psycopg.connect(database) as db:
            rows = db.execute("SELECT id, attempts, claimed_by FROM submissions WHERE exercise = 'slow'").fetchall()
        assert sorted(row[0] for row in rows) == sorted(numbers)
        assert all(attempts == 1 for _, attempts, _ in rows)  # graded once, by one server
        assert {claimed for _, _, claimed in rows} <= {"one", "two"}
    finally:
        other.stop()
