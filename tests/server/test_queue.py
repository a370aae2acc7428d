"""The grading loop is a perfect queue's: each submission to the first worker free, a fair share per
student (each student's oldest waiting submission before anyone's next one), first come first served within
a share. None is committed to a worker that is still grading another, so a quick hand-in never waits behind a
looping one while another worker could take it; one made ready for the next worker free goes back to the
queue, its try not counted, when the server stops first. The server's workers are the batch's pool's: a
course with an environment has them load numpy and pandas before the first submission, as a batch's do."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from grader.server.state import DATABASE
from tests.server.conftest import ADD, Served
from tests.server.test_restart import workers_of

# A loop that never ends, under a CPU limit long beside the quick hand-ins' whole grading.
SPIN = """\
title: Spin
statement: Add, slowly.
kind: function
entry: add
limits:
  cpu: 5
tests:
  - name: add(5000, 1)
    call: add(5000, 1)
    expect: 5001
"""
LOOPING = "def add(a, b):\n    while a > 1000:\n        pass\n    return a + b\n"
# One that outlasts any test that waits on others beside it, however loaded the machine: its wall-clock
# limit (3 x CPU + 2 s) is what ends it on a busy machine, long before its CPU runs out. The test ends first,
# and the server's stop ends it.
ENDLESS = SPIN.replace("cpu: 5", "cpu: 600")
# One that holds a worker for a fixed wall time without using the CPU: a loaded machine (a CI runner with
# the other tests beside it) neither shortens its hold nor slows the server the test reads meanwhile.
DOZE = SPIN.replace("cpu: 5", "cpu: 5\n  wall: 30")
SLEEPING = "import time\n\ndef add(a, b):\n    time.sleep(3600)\n    return a + b\n"


def running(served: Served, token: str, number: int) -> str:
    body = served.call("GET", f"/api/submissions/{number}", token).body
    if body["status"] == "queued":  # ?wait answers when it changes: once a worker has it
        body = served.call("GET", f"/api/submissions/{number}?wait=30", token).body
    if body["status"] != "running":  # say why: the report, the server's errors
        print(body, served.errors.read_text()[-3000:])
    return str(body["status"])


def test_quick_hand_ins_pass_a_looping_one_on_the_other_worker(served: Served) -> None:
    (served.exercises / "spin.yaml").write_text(ENDLESS)
    alice = served.token("alice", staff=True)  # staff: no rate limit to mind
    served.start("--workers", "2")
    sent = served.submit(alice, "spin", LOOPING)
    assert sent.status == 202, sent.body
    looping = sent.body["id"]
    assert running(served, alice, looping) == "running"
    # More at once than the workers: a loop that filled the workers' pipes would put one behind the looper.
    quick = [served.submit(alice, "add", f"# {n}\n{ADD}").body["id"] for n in range(6)]
    for number in quick:
        assert served.wait(alice, number)["report"]["verdict"] == "passed"
    assert served.call("GET", f"/api/submissions/{looping}", alice).body["status"] == "running"
    assert "Traceback" not in served.errors.read_text()


def test_a_stopped_server_puts_back_what_no_worker_began(served: Served) -> None:
    (served.exercises / "spin.yaml").write_text(ENDLESS)
    alice = served.token("alice", staff=True)
    served.start("--workers", "1")
    looping = served.submit(alice, "spin", LOOPING).body["id"]
    assert running(served, alice, looping) == "running"
    after = [served.submit(alice, "add", f"# {n}\n{ADD}").body["id"] for n in range(3)]
    assert running(served, alice, after[0]) == "running"  # ready for the worker, which is still looping
    served.stop()
    with sqlite3.connect(served.state / DATABASE) as db:
        rows = dict((number, (status, attempts)) for number, status, attempts in
                    db.execute("SELECT id, status, attempts FROM submissions"))
    assert rows[looping] == ("running", 1)  # begun: the restart's recovery decides
    assert [rows[number] for number in after] == [("queued", 0)] * 3


def graded_order(served: Served) -> list[int]:
    with sqlite3.connect(served.state / DATABASE) as db:
        return [number for (number,) in db.execute("SELECT id FROM submissions ORDER BY graded_at")]


def test_one_student_s_resubmissions_do_not_hold_the_queue_while_others_wait(served: Served) -> None:
    (served.exercises / "spin.yaml").write_text(DOZE)
    eve, bob, carol = (served.token(name) for name in ("eve", "bob", "carol"))
    served.start("--workers", "1")
    looping = served.submit(eve, "spin", SLEEPING).body["id"]  # holds the one worker until its wall limit
    assert running(served, eve, looping) == "running"
    again = [served.submit(eve, "add", f"# {n}\n{ADD}").body["id"] for n in range(4)]
    others = [served.submit(token, "add", f"# {token}\n{ADD}").body["id"] for token in (bob, carol)]
    for token, number in [(eve, n) for n in again] + list(zip((bob, carol), others)):
        assert served.wait(token, number)["report"]["verdict"] == "passed"
    order = graded_order(served)
    # Eve's first resubmission was made ready for the worker while it looped; after it, Bob's and Carol's
    # first (and only) submissions go ahead of her second, third and fourth, though sent after them.
    assert order == [looping, again[0], *others, *again[1:]]


def test_a_server_s_workers_load_a_course_environment_s_numpy_and_pandas_before_the_first_job(
        served: Served) -> None:
    (served.exercises.parent / "grader-course.yaml").write_text("environment:\n  packages: [numpy==2.0.0]\n")
    served.start("--workers", "1")
    assert served.process is not None
    deadline = time.monotonic() + 120
    while True:
        maps = [Path(f"/proc/{pid}/maps").read_text() for pid in workers_of(served.process.pid)]
        if maps and all("numpy" in text and "pandas" in text for text in maps):
            break
        assert time.monotonic() < deadline, "the server's worker never loaded numpy and pandas"
        time.sleep(0.2)
