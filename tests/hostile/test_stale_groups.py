"""A grader removes the cgroups a dead grader left, and never a running grader's: not even when it runs in a
PID namespace of its own (a container's PID 1) on the same hierarchy, where no other grader's pid exists."""

from __future__ import annotations

import os
import subprocess
import sys

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
