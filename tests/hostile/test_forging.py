"""No forging: every escape from a test ends in a verdict for that test, and the grader goes on."""

from __future__ import annotations

import time

from tests.hostile.host import Course, leftovers, submission, verdicts

ESCAPES = {
    "exit0": "runtime_error",  # SystemExit in a function's test is no answer
    "os_exit": "runtime_error",
    "interrupt": "runtime_error",
    "closed_stdout": "wrong_answer",  # returns 1, not 2: a verdict, and the next test runs
    "kill_parent": "runtime_error",  # the harness dies; a fresh sandbox runs the next test
    "import_grader": "runtime_error",  # ModuleNotFoundError: the grader is out of reach
    "huge_reply": "wrong_answer",
}


def test_every_escape_ends_in_its_verdict(hostile: Course) -> None:
    tests = "".join(f"  - name: {name}\n    call: {name}()\n    expect: 2\n    limits: {{cpu: 2}}\n"
                    for name in ESCAPES)
    hostile.exercise(tests)
    started = time.monotonic()
    result = hostile.check(submission("escapes.py"))
    elapsed = time.monotonic() - started
    got = verdicts(result)
    assert {name: got[name] for name in ESCAPES} == ESCAPES, result.stdout
    assert got["square(3)"] == "passed" and got[f"secret-{hostile.needle}"] == "passed"
    assert elapsed < 20  # the 2 MB reply is read in well under a second (JSON, not literal_eval)
    assert leftovers(result) == []


def test_a_rewritten_harness_cannot_hide_cpu_or_answer_ahead(hostile: Course) -> None:
    hostile.exercise("  - name: slow\n    call: slow()\n    expect: 1\n"
                     "  - name: wrong\n    call: wrong()\n    expect: 81\n", cpu=0.5)
    result = hostile.check(submission("forge.py"), "--all")  # every test runs after the timeout
    got, isolation = verdicts(result), result.json()["isolation"]
    assert got["wrong"] == "wrong_answer"  # the reply sent ahead carried a stale seq: dropped
    assert got["square(3)"] == "passed"
    if "cgroup" in isolation:  # the cgroup counts the unreaped child's CPU; /proc of the harness cannot
        assert got["slow"] == "timeout", result.stdout
    assert leftovers(result) == []
