"""A submission never runs as root or with a capability, under every layer combination the sandbox claims,
and the system calls of the machine's administrator (devices, mounts, clock, log, accounting) stay shut."""

from __future__ import annotations

import json

from tests.hostile.combinations import Runner, every_combination
from tests.hostile.host import Course, submission

ATTACKS = "".join(f"  - name: {name}\n    call: {name}()\n    expect: {expect}\n" for name, expect in (
    ("identity", "unprivileged, no bounding set"),
    ("device_node", "denied"), ("block_node", "denied"), ("fifo", "made"), ("kmsg", "denied"),
    ("syslog", "denied"), ("block_device", "denied"), ("mount_setattr", "denied"), ("new_mount_api", "denied"),
    ("set_clock", "denied"), ("read_clock_state", "denied denied"), ("accounting", "denied"),
    ("kernel_kin", "denied")))
# Calls that fail without the filter too, but for another reason (a bad argument, no such module): with
# seccomp each one is refused outright (EPERM); without it none may succeed.
FILTERED_ONLY = ("new_mount_api", "read_clock_state", "kernel_kin")


@every_combination
def test_the_submission_has_no_uid_0_no_capability_and_no_admin_call(hostile: Course, run: Runner) -> None:
    hostile.exercise(ATTACKS)
    result = run(hostile, submission("privileges.py"))
    assert result.returncode in (0, 1), result.stderr
    report = result.json()
    root = not report["isolation"].startswith("rlimits only: not root")
    if root:
        assert report["isolation"].startswith("isolation: uid "), report["isolation"]  # never "rlimits only"
    # Only CAP_SETPCAP could empty the bounding set: a grader that is not root leaves it, with no_new_privs.
    _assert_held(report, bounding_set_empty=root)


def _assert_held(report: dict, bounding_set_empty: bool) -> None:
    seccomp = "seccomp" in report["isolation"]
    for test in report["tests"]:
        name, actual = test["name"], str(test.get("actual"))
        if name in FILTERED_ONLY and not seccomp:
            assert "done:" not in actual, test  # refused for another reason, but refused
            if name == "read_clock_state":
                continue  # adjtimex(modes=0) only reads the clock's state: allowed without the filter
            assert "got" not in actual, test
        elif name == "identity" and not bounding_set_empty:
            assert actual.startswith("'unprivileged, bounding set "), test
        else:
            assert test["verdict"] == "passed", json.dumps(test)
