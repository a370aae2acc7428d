"""Resource bombs end in a verdict, leave nothing running, and the next test and submission still grade."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile.host import GOOD, Course, leftovers, submission, verdicts

ATTACK = """
  - name: attack
    call: attack()
    expect: 0
"""


@pytest.fixture
def course(tmp_path: Path) -> Iterator[Course]:
    made = Course(tmp_path)
    made.exercise(ATTACK, cpu=1.0, memory=256)
    yield made
    made.remove()


@pytest.mark.parametrize(("name", "verdict"), [
    ("fork_bomb.py", "runtime_error"),  # BlockingIOError at the process limit
    ("memory_bomb.py", "memory_limit"),
    ("output_flood.py", "output_limit"),
    ("sparse_file.py", "runtime_error"),  # File too large
    ("threads.py", "runtime_error"),  # can't start new thread
    ("busy_loop.py", "timeout"),  # SIGTERM, SIGPROF and SIGXCPU ignored: the hard limit and the wall clock
])
def test_a_bomb_ends_in_its_verdict_and_nothing_is_left(course: Course, name: str, verdict: str) -> None:
    result = course.check(submission(name), "--all")  # the tests after a timeout run too
    assert verdicts(result) == {"attack": verdict, "square(3)": "passed",
                                f"secret-{course.needle}": "passed"}, result.stdout
    assert leftovers(result) == []
    assert list(course.scratch.iterdir()) == []  # the working folder (sparse.bin included) is gone
    assert course.check(GOOD).json()["verdict"] == "passed"  # and the grader goes on with the next one


def test_helpers_that_together_exceed_the_memory_limit(course: Course) -> None:
    """Twelve 150 MiB helpers: each fits the per-process limit, the cgroup bounds them together."""
    course.exercise(ATTACK + "    limits: {cpu: 5}\n")  # their CPU counts too: 12 x 0.1 s
    result = course.check(submission("memory_bomb_processes.py"), timeout=90)
    expected = "memory_limit" if "cgroup" in result.json()["isolation"] else "wrong_answer"
    assert verdicts(result)["attack"] == expected, result.stdout
    assert verdicts(result)["square(3)"] == "passed"
    assert leftovers(result) == []
