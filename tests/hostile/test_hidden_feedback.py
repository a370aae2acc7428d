"""A hidden test's feedback is the grader's own words and a builtin exception's class name, on every path:
a submission that fails just past the time limit, out of memory or over the output limit, with a message
quoting the hidden input, shows none of it (end to end through `grader check` and its PrairieLearn output)."""

from __future__ import annotations

import pytest

from tests.hostile.host import Course, submission

CPU = 1.0
HIDDEN_INPUT = "2680"  # the hidden test host.Course writes: square(2680)


@pytest.mark.parametrize("how", ["timeout", "memory", "output", "raise"])
def test_a_hidden_test_never_carries_what_the_submission_wrote(hostile: Course, how: str) -> None:
    hostile.exercise("", cpu=CPU)
    code = submission("leak_through_failure.py", how=how, burn=CPU * 1.1)  # the grader stops it at 1.2 x
    for output in ("json", "prairielearn"):
        result = hostile.check(code, "--format", output, timeout=120)
        shown = result.stdout.replace(hostile.needle, "")
        assert "LEAK" not in shown and HIDDEN_INPUT not in shown, result.stdout
        assert "LEAK" not in result.stderr, result.stderr
    hidden = [t for t in hostile.check(code, timeout=120).json()["tests"] if t["name"].startswith("secret-")][0]
    assert hidden["verdict"] == {"timeout": "timeout", "memory": "memory_limit", "output": "output_limit",
                                 "raise": "runtime_error"}[how], hidden
