"""A grader removes the cgroups a dead grader left, and never a running grader's: not even when it runs in a
PID namespace of its own (a container's PID 1) on the same hierarchy, where no other grader's pid exists."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.sandbox import groups

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or groups.unavailable() != "",
                                reason="needs root and a cgroup hierarchy")

REMOVE_STALE = "from grader.sandbox import groups; groups.remove_stale()"


def test_a_grader_in_its_own_pid_namespace_leaves_a_running_graders_group_alone() -> None:
    if subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True).returncode:
        pytest.skip("no new PID namespace here")
    group = groups.new_group()
    group.create(memory_bytes=64 << 20, processes=8)
    member = subprocess.Popen(["sleep", "60"])
    try:
        group.add(member.pid)
        done = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", REMOVE_STALE],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert member.poll() is None  # still running: its grader (this test) is alive
        subprocess.run([sys.executable, "-c", REMOVE_STALE], check=True, timeout=60)  # our own namespace too
        assert member.poll() is None
    finally:
        member.kill()
        member.wait()
        group.kill()
        group.remove()


def test_a_group_left_by_a_dead_grader_is_emptied_and_removed() -> None:
    made = subprocess.run([sys.executable, "-c", (
        "import subprocess; from grader.sandbox import groups\n"
        "g = groups.new_group(); g.create(memory_bytes=64 << 20, processes=8)\n"
        "p = subprocess.Popen(['sleep', '60'], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); g.add(p.pid); print(p.pid)\n")],
        capture_output=True, text=True, timeout=60, check=True)
    orphan = int(made.stdout.split()[-1])  # its grader has exited without closing the sandbox
    try:
        subprocess.run([sys.executable, "-c", REMOVE_STALE], check=True, timeout=60)
        assert not os.path.exists(f"/proc/{orphan}") or open(f"/proc/{orphan}/stat").read().split()[2] == "Z"
    finally:
        try:
            os.kill(orphan, 9)
        except ProcessLookupError:
            pass


# A grader's layer probe, as PID 1 of a PID namespace of its own (a container's grader), whose probe group is
# left in place: what another grader probing at the same moment would find.
PROBE_LEFT_IN_PLACE = ("from grader.sandbox import groups\nfrom grader.sandbox.groups import v1, v2\n"
                       "v1.Group.remove = v2.Group.remove = lambda self: None\nassert groups.unavailable() == ''\n")
PROBE = "from grader.sandbox import groups; assert groups.unavailable() == ''"
HIERARCHIES = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup", "/sys/fs/cgroup/unified")


def _probe_groups() -> set[str]:
    return {path.name for root in HIERARCHIES for path in Path(root).glob("grader-probe-*")}


def _as_pid_one(code: str) -> None:
    done = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_two_graders_that_are_each_pid_one_probe_the_cgroup_layer_without_removing_each_others_group() -> None:
    if subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True).returncode:
        pytest.skip("no new PID namespace here")
    before = _probe_groups()
    _as_pid_one(PROBE_LEFT_IN_PLACE)
    theirs = _probe_groups() - before
    try:
        assert len(theirs) == 1
        _as_pid_one(PROBE)  # the same pid in another namespace: removing theirs would fail their probe
        assert theirs <= _probe_groups()
    finally:
        for name in theirs:
            for folder in [*Path("/sys/fs/cgroup").glob(f"*/{name}"), Path("/sys/fs/cgroup") / name]:
                try:
                    folder.rmdir()
                except OSError:
                    pass  # not in this hierarchy, or the same folder reached twice (cpu,cpuacct)
