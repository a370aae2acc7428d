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
