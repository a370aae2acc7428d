"""Nothing outlives its test: daemons that left the process group, helpers that hold the harness's pipes."""

from __future__ import annotations

import secrets
import time

from tests.hostile.host import Course, leftovers, submission, verdicts

DAEMON_TESTS = """
  - name: attack
    call: attack()
    expect: started
  - name: look
    call: look()
    expect: gone
"""


def test_a_double_forked_daemon_is_gone_before_the_next_test(hostile: Course) -> None:
    marker = f"daemon-{secrets.token_hex(6)}"
    hostile.exercise(DAEMON_TESTS)
    result = hostile.check(submission("daemon.py", marker=marker))
    assert verdicts(result)["attack"] == "passed", result.stdout
    assert verdicts(result)["look"] == "passed", result.stdout  # killed by the per-test sweep
    assert leftovers(result, marker) == []


def test_a_helper_started_while_loading_cannot_hold_the_pipes_or_forge(hostile: Course) -> None:
    marker = f"loader-{secrets.token_hex(6)}"
    hostile.exercise("  - name: attack\n    call: attack()\n    expect: loaded\n")
    started = time.monotonic()
    result = hostile.check(submission("load_time_helper.py", marker=marker), timeout=30)
    assert time.monotonic() - started < 15  # no hang on a pipe held open
    assert verdicts(result) == {"attack": "passed", "square(3)": "passed",
                                f"secret-{hostile.needle}": "passed"}, result.stdout
    assert leftovers(result, marker) == []


def test_processes_of_a_grader_killed_mid_test_are_killed_by_the_next_grader(hostile: Course) -> None:
    import os
    import signal
    import subprocess
    import sys

    from grader.sandbox.isolation import detect
    from tests.hostile.host import GOOD, sandbox_pids

    if not detect().cgroup:
        import pytest

        pytest.skip("without the cgroup layer nothing finds them (the slot uid is killed only when reused)")
    marker = f"orphan-{secrets.token_hex(6)}"
    hostile.exercise("  - name: attack\n    call: attack()\n    expect: 0\n    limits: {cpu: 5, wall: 60}\n")
    path = hostile.root / "class" / "alice" / "hostile.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(submission("outlive_grader.py", marker=marker))
    grader = subprocess.Popen([sys.executable, "-m", "grader", "check", "hostile", str(path), "--format", "json",
                               "--exercises", str(hostile.root / "exercises")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, "TMPDIR": str(hostile.scratch)})
    deadline = time.monotonic() + 20
    while not sandbox_pids(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sandbox_pids(marker), "the daemon never started"
    grader.send_signal(signal.SIGKILL)
    # Dead but not reaped: while its pid exists no grader takes its groups for a dead one's, so another
    # grader starting beside this test (pytest -n 2) cannot empty them before the look below.
    os.waitid(os.P_PID, grader.pid, os.WEXITED | os.WNOWAIT)
    time.sleep(0.3)
    assert sandbox_pids(marker)  # the grader died without closing its sandbox: the daemon lives on...
    grader.wait()
    assert hostile.check(GOOD).json()["verdict"] == "passed"
    deadline = time.monotonic() + 5
    while sandbox_pids(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sandbox_pids(marker) == []  # ...until the next grader starts and empties the stale cgroup
