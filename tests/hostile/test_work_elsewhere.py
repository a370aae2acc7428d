"""Slow solutions cannot pass by working elsewhere: loading is charged to a CPU limit of its own, and
nothing a test writes survives into the next test, whatever it did to the permissions."""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile.combinations import Runner, every_combination
from tests.hostile.host import Course, submission, verdicts

LOAD_LIMIT = 0.5  # the exercise's cpu: what loading may use


@pytest.mark.parametrize("how", ["plain", "disarmed", "finish"])
def test_computing_at_import_time_is_a_timeout_while_loading(hostile: Course, how: str) -> None:
    """plain: a loop forever (SIGPROF stops it); disarmed: SIGPROF and SIGXCPU switched off, forever (the
    sandbox's hard limit stops it); finish: switched off, and done at 10x the limit (the grader's reading)."""
    hostile.exercise("  - name: answer\n    call: square(4)\n    expect: 16\n    limits: {cpu: 10}\n",
                     cpu=LOAD_LIMIT, extra=", wall: 30")  # neither the wall clock nor the tests' cpu decides
    result = hostile.check(submission("load_spin.py", how=how), timeout=90)
    report = result.json()
    assert set(verdicts(result).values()) == {"timeout"}, result.stdout
    feedback = report["tests"][0]["feedback"]
    assert feedback.startswith(f"time limit exceeded while loading the file (its limit: {LOAD_LIMIT:.2f} s CPU)")


@pytest.fixture
def marker() -> Iterator[str]:
    made = secrets.token_hex(6)
    yield made
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):  # what a clean-up that failed left on the host
        path = Path(folder) / f"partial-{made}"
        if path.exists():
            path.chmod(0o700)
            shutil.rmtree(path)


@every_combination
def test_partial_results_kept_in_locked_folders_do_not_reach_the_next_test(
        hostile: Course, run: Runner, marker: str) -> None:
    # Without a mount namespace the working folder is on disk, where a deep tree takes seconds of wall clock
    # to remove on a loaded machine, and under Landlock each step down a deep path costs more CPU: the stash
    # test gets the time (what is tested is what survives).
    hostile.exercise("  - name: stash\n    call: stash()\n    expect: stashed\n    limits: {cpu: 10, wall: 60}\n"
                     "  - name: look\n    call: look()\n    expect: []\n")
    result = run(hostile, submission("keep_partial.py", marker=marker))
    assert verdicts(result) == {"stash": "passed", "look": "passed", "square(3)": "passed",
                                f"secret-{hostile.needle}": "passed"}, result.stdout + result.stderr
    assert not any(os.path.exists(f"{folder}/partial-{marker}") for folder in ("/tmp", "/var/tmp", "/dev/shm"))
