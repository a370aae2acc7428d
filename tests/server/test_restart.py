"""Nothing lost: a server killed with SIGKILL mid-queue grades every acknowledged submission after a restart,
once; a grading worker killed mid-grading is replaced and its submission tried once more, then recorded as
an error with the reason, never left running."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path

from grader.server.queue import DIED
from tests.server.conftest import Served

SLOW = """\
title: Slow identity
kind: function
entry: slow
statement: Return x, after thinking.
limits:
  cpu: 30
tests:
  - name: slow(1)
    call: slow(1)
    expect: 1
"""


def burner(seconds: float, tag: int) -> str:
    # CPU time, not wall time: the same work however loaded the machine is.
    return (f"import time\n# {tag}\ndef slow(x):\n    mark = time.process_time() + {seconds}\n"
            f"    while time.process_time() < mark:\n        pass\n    return x\n")


def rows(state: Path) -> dict[int, tuple[str, int, str | None]]:
    with sqlite3.connect(state / "state.sqlite") as db:
        return {n: (status, attempts, error) for n, status, attempts, error in
                db.execute("SELECT id, status, attempts, error FROM submissions")}


def wait_for(condition, timeout: float = 120) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def workers_of(pid: int) -> list[int]:
    # Every thread's children: a replacement worker is started by the server's grading thread.
    children = [c for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]
    return [int(c) for c in children if b"grader.workers.worker" in Path(f"/proc/{c}/cmdline").read_bytes()]


def test_a_server_killed_mid_queue_grades_every_submission_once_after_a_restart(served: Served) -> None:
    (served.exercises / "slow.yaml").write_text(SLOW)
    alice = served.token("alice")
    served.start("--workers", "1")
    numbers = [served.submit(alice, "slow", burner(0.3, n)).body["id"] for n in range(6)]
    wait_for(lambda: rows(served.state)[numbers[0]][0] in ("running", "done"))
    assert served.process is not None
    worker = workers_of(served.process.pid)
    served.kill()
    before = rows(served.state)
    assert set(before) == set(numbers), "every acknowledged submission is stored"
    assert any(status == "queued" for status, _, _ in before.values()), "the kill came too late to test a queue"
    for pid in worker:  # the workers die with the server (PR_SET_PDEATHSIG)
        wait_for(lambda pid=pid: not Path(f"/proc/{pid}").exists() or
                 Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z", timeout=30)

    served.start()
    for number in numbers:
        graded = served.wait(alice, number)
        assert graded["status"] == "done" and graded["report"]["verdict"] == "passed", graded
    after = rows(served.state)
    for number, (status, attempts, _) in before.items():
        # graded once: a queued one by one worker; one that was running when the server died, once more
        assert after[number][1] == (2 if status == "running" else 1), (number, status, after[number])
    assert served.call("GET", "/api/health", served.token("prof", staff=True)).body["queue"]["running"] == 0


def test_a_worker_that_dies_is_replaced_and_its_submission_tried_once_more_then_an_error(served: Served) -> None:
    (served.exercises / "slow.yaml").write_text(SLOW)
    alice = served.token("alice")
    served.start("--workers", "1")
    assert served.process is not None
    doomed = served.submit(alice, "slow", burner(20, 0)).body["id"]
    for attempt in (1, 2):
        wait_for(lambda attempt=attempt: rows(served.state)[doomed][:2] == ("running", attempt))
        wait_for(lambda: bool(workers_of(served.process.pid)))  # type: ignore[union-attr]
        for pid in workers_of(served.process.pid):
            os.kill(pid, signal.SIGKILL)
    graded = served.wait(alice, doomed)
    assert graded["status"] == "error" and graded["error"] == DIED
    assert {t["verdict"] for t in graded["report"]["tests"]} == {"grader_error"}
    assert rows(served.state)[doomed][:2] == ("error", 2)
    after = served.submit(alice, "slow", burner(0.05, 1)).body["id"]  # a new worker took its place
    assert served.wait(alice, after)["report"]["verdict"] == "passed"
