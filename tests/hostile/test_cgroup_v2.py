"""The cgroup v2 resource group, for real on this machine's v2 hierarchy. Here that hierarchy has no
controllers (hybrid mode: memory and pids are bound to v1), so what is exercised is membership, cpu.stat
and cgroup.kill; memory.max, pids.max and memory.events are not (README, "What does not hold")."""

from __future__ import annotations

import os
import signal
import time

import pytest

from grader.sandbox import groups
from grader.sandbox.groups import v1, v2
from grader.sandbox.groups.files import pid_namespace

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not v2.present(), reason="needs root and a cgroup v2 hierarchy")


def _spin_in(group: v2.Group, seconds: float) -> tuple[int, int]:
    """A child that joins the group itself, starts an escaped grandchild (setsid, reparented) that spins
    forever, spins `seconds` of CPU itself and then waits. Returns (child, grandchild)."""
    ready_r, ready_w = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            group.add(os.getpid())
            grandchild = os.fork()
            if grandchild == 0:
                os.close(ready_w)
                os.setsid()
                while True:
                    pass
            end = time.process_time() + seconds
            while time.process_time() < end:
                pass
            os.write(ready_w, str(grandchild).encode())
            signal.pause()
        finally:
            os._exit(0)
    os.close(ready_w)
    grandchild = int(os.read(ready_r, 16))
    os.close(ready_r)
    return child, grandchild


def test_membership_cpu_of_every_member_and_a_kill_that_misses_no_one() -> None:
    group = v2.Group(f"{os.getpid()}-test")
    group.create(memory_bytes=None, processes=None)  # no controller to set them with here
    try:
        child, grandchild = _spin_in(group, 0.3)
        assert set(group.pids()) == {child, grandchild}
        deadline = time.process_time() + 5
        while group.cpu_seconds() < 0.6 and time.process_time() < deadline:  # ours counts nothing of theirs
            time.sleep(0.05)
        assert group.cpu_seconds() >= 0.6  # the child's 0.3 s and the escaped grandchild's spin
        assert group.kill()
        os.waitpid(child, 0)
        assert group.pids() == []
        assert not os.path.exists(f"/proc/{grandchild}/status") or "zombie" in open(f"/proc/{grandchild}/status").read()
    finally:
        group.signal_members()
        group.remove()
    assert not os.path.exists(group.dir)


def test_without_the_memory_and_pids_controllers_the_layer_is_off_and_no_group_is_weaker() -> None:
    offered = (v2.hierarchy() / "cgroup.controllers").read_text().split()
    if "memory" in offered and "pids" in offered:
        pytest.skip("this hierarchy has the controllers: the sandbox tests exercise it")
    assert "offers no memory" in v2.unavailable()
    group = v2.Group(f"{os.getpid()}-limits")
    try:
        with pytest.raises(OSError):
            group.create(memory_bytes=64 << 20, processes=8)  # a sandbox start fails rather than go unbounded
    finally:
        group.remove()


def test_the_registry_takes_v1_where_it_is_mounted_and_v2_otherwise() -> None:
    assert list(groups.KINDS) == ["v1", "v2"]
    chosen = groups._kind()
    assert chosen is (v1 if v1.present() else v2)


def test_a_stale_group_of_a_dead_grader_is_emptied_and_removed() -> None:
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)  # a pid no process has now
    stale = v2.Group(f"{dead}-{pid_namespace()}-1")  # named as a grader of our PID namespace names it
    stale.create(memory_bytes=None, processes=None)
    child, grandchild = _spin_in(stale, 0.0)
    v2.remove_stale()
    os.waitpid(child, 0)
    assert not os.path.exists(stale.dir)
