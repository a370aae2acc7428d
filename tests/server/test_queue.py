"""The grading loop is a perfect queue's: first come, first served, each submission to the first worker
free. None is committed to a worker that is still grading another, so a quick hand-in never waits behind a
looping one while another worker could take it."""

from __future__ import annotations

from tests.server.conftest import ADD, Served

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


def test_quick_hand_ins_pass_a_looping_one_on_the_other_worker(served: Served) -> None:
    (served.exercises / "spin.yaml").write_text(SPIN)
    alice = served.token("alice", staff=True)  # staff: no rate limit to mind
    served.start("--workers", "2")
    sent = served.submit(alice, "spin", LOOPING)
    assert sent.status == 202, sent.body
    looping = sent.body["id"]
    status = served.call("GET", f"/api/submissions/{looping}", alice).body["status"]
    if status == "queued":  # ?wait answers when it changes: once a worker has it
        status = served.call("GET", f"/api/submissions/{looping}?wait=30", alice).body["status"]
    assert status == "running"
    # More at once than the workers: a loop that filled the workers' pipes would put one behind the looper.
    quick = [served.submit(alice, "add", f"# {n}\n{ADD}").body["id"] for n in range(6)]
    for number in quick:
        assert served.wait(alice, number)["report"]["verdict"] == "passed"
    assert served.call("GET", f"/api/submissions/{looping}", alice).body["status"] == "running"
    assert "Traceback" not in served.errors.read_text()
