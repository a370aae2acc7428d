"""A submission never runs as root or with a capability, under every layer combination the sandbox claims,
and the system calls of the machine's administrator (devices, mounts, clock, log, accounting) stay shut."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Completed
from tests.hostile.host import Course, submission, verdicts
from tests.hostile.test_not_root import SYSTEM_PYTHON, run_as_nobody

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="needs root")
ATTACKS = "".join(f"  - name: {name}\n    call: {name}()\n    expect: {expect}\n" for name, expect in (
    ("identity", "unprivileged, no bounding set"),
    ("device_node", "denied"), ("block_node", "denied"), ("fifo", "made"), ("kmsg", "denied"),
    ("syslog", "denied"), ("block_device", "denied"), ("mount_setattr", "denied"), ("new_mount_api", "denied"),
    ("set_clock", "denied"), ("read_clock_state", "denied denied"), ("accounting", "denied"),
    ("kernel_kin", "denied")))
# Calls that fail without the filter too, but for another reason (a bad argument, no such module): with
# seccomp each one is refused outright (EPERM); without it none may succeed.
FILTERED_ONLY = ("new_mount_api", "read_clock_state", "kernel_kin")


def run_without_slot_folder(course: Course, code: str) -> Completed:
    """As root, in a mount namespace where /run and /tmp are read-only (as in many containers), with only
    the course, the grader's scratch folder and its cache writable."""
    path = course.root / "class" / "alice" / "hostile.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(code)
    writable = [str(course.root), str(course.scratch), os.environ["GRADER_CACHE"]]
    script = ('set -e; mount -t tmpfs -o ro,size=4k tmpfs /run; for d in "$@"; do mount --bind "$d" "$d"; done; '
              'mount --rbind /tmp /tmp; mount -o remount,bind,ro /tmp; '
              'if touch /tmp/.writable 2>/dev/null || touch /run/.writable 2>/dev/null; then exit 99; fi; '
              f'exec {sys.executable} -m grader check hostile {path} --format json '
              f'--exercises {course.root / "exercises"}')
    process = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                              *writable], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "TMPDIR": str(course.scratch)})
    assert process.returncode != 99, "/tmp or /run stayed writable"
    return Completed(process.returncode, process.stdout, process.stderr)


def _layers(value: str) -> Callable[[Course, str], Completed]:
    return lambda course, code: course.check(code, env={"GRADER_LAYERS": value} if value else None)


COMBINATIONS = {
    "all layers": pytest.param(_layers(""), marks=ROOT_ONLY),
    "no cgroup": pytest.param(_layers("uid,seccomp,netns,mountns,landlock"), marks=ROOT_ONLY),
    "root, every layer off": pytest.param(_layers("none"), marks=ROOT_ONLY),  # the uid stays (see isolation)
    "root without a slot folder": pytest.param(
        run_without_slot_folder, marks=[ROOT_ONLY, pytest.mark.skipif(not shutil.which("unshare"),
                                                                       reason="needs unshare(1)")]),
}


@pytest.mark.parametrize("run", COMBINATIONS.values(), ids=COMBINATIONS.keys())
def test_root_gives_the_submission_no_uid_0_no_capability_and_no_admin_call(
        hostile: Course, run: Callable[[Course, str], Completed]) -> None:
    hostile.exercise(ATTACKS)
    result = run(hostile, submission("privileges.py"))
    assert result.returncode in (0, 1), result.stderr
    report = result.json()
    assert report["isolation"].startswith("isolation: uid "), report["isolation"]  # never "rlimits only"
    _assert_held(report, bounding_set_empty=True)


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv") or not os.path.exists(SYSTEM_PYTHON),
                    reason="needs root, setpriv and the system's Python to become another user")
def test_a_grader_that_is_not_root_gives_no_capability_either(hostile: Course) -> None:
    course = Course(hostile.scratch / "course", scratch=hostile.scratch)  # where uid 65534 can read it
    course.exercise(ATTACKS)
    result = run_as_nobody(course, submission("privileges.py"))
    assert result.returncode in (0, 1), result.stderr
    report = result.json()
    assert report["isolation"].startswith("rlimits only: not root")
    _assert_held(report, bounding_set_empty=False)  # only CAP_SETPCAP could empty it; uid 65534 has none


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
            assert test["verdict"] == "passed", test
