"""The cgroup v1 resource group: one group in each of the memory, pids and cpuacct hierarchies."""

from __future__ import annotations

import functools
import itertools
import os
from pathlib import Path

from grader.sandbox.groups.files import Counters, kill_members, left_by_a_dead_grader, members, owner_tag, write

V1_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids", "cpuacct")
PREFIX = "grader-"
_counter = itertools.count(1)


def present() -> bool:
    """Whether the v1 hierarchies are mounted (a stat each: no group is made)."""
    return all(os.path.isfile(f"{V1_ROOT}/{controller}/cgroup.procs") for controller in CONTROLLERS)


def unavailable() -> str:
    """Why the cgroup layer cannot be used here ('' when it can): v1 memory, pids and cpuacct, writable."""
    if os.geteuid() != 0:
        return "needs root"
    for controller in CONTROLLERS:
        if not (V1_ROOT / controller / "cgroup.procs").is_file():
            if (V1_ROOT / "cgroup.controllers").is_file():
                return "cgroup v2 only (v1 memory, pids and cpuacct are needed)"
            return f"no cgroup v1 '{controller}' hierarchy at {V1_ROOT / controller}"
    probe = Group(f"probe-{owner_tag()}")  # two PID 1s (containers on one hierarchy) probe apart
    try:
        probe.create(memory_bytes=64 << 20, processes=8)
    except OSError as error:
        return f"cannot create a group: {error.strerror or error}"
    finally:
        probe.remove()
    return ""


class Group:
    """One group in each controller hierarchy, named after this grader process."""

    def __init__(self, name: str | None = None) -> None:
        self.name = PREFIX + (name or f"{owner_tag()}-{next(_counter)}")
        # Plain strings and os calls: a batch makes and removes a group per submission.
        self.dirs = {c: f"{V1_ROOT}/{c}/{self.name}" for c in CONTROLLERS}
        self._counters = Counters()

    def create(self, memory_bytes: int, processes: int) -> None:
        for folder in self.dirs.values():
            try:
                os.mkdir(folder, 0o755)
            except FileExistsError:
                pass
        memory = self.dirs["memory"]
        write(f"{memory}/memory.limit_in_bytes", memory_bytes)
        if _swap_accounted():  # no swapping out either
            write(f"{memory}/memory.memsw.limit_in_bytes", memory_bytes)
        write(f"{self.dirs['pids']}/pids.max", processes)

    def add(self, pid: int) -> None:
        """Move a process in (the sandbox's, before it is sent anything to run)."""
        if pid <= 0:  # 0 would move the writer: the grader itself
            raise ProcessLookupError(f"no process {pid} to move into the sandbox's cgroup")
        for folder in self.dirs.values():
            write(f"{folder}/cgroup.procs", pid)

    def cpu_seconds(self) -> float:
        try:
            return int(self._counters.read(f"{self.dirs['cpuacct']}/cpuacct.usage")) / 1e9
        except (OSError, ValueError):
            return 0.0

    def memory_hits(self) -> int:
        memory = self.dirs["memory"]
        hits = self._counters.field(f"{memory}/memory.oom_control", b"oom_kill")
        for name in ("memory.failcnt", "memory.memsw.failcnt"):
            try:
                hits += int(self._counters.read(f"{memory}/{name}"))
            except (OSError, ValueError):
                pass
        return hits

    def pids(self) -> list[int]:
        return members(f"{self.dirs['pids']}/cgroup.procs")

    def kill(self) -> bool:
        """SIGKILL every member until none is left (pids.max bounds how many a fork loop can add)."""
        for _ in range(100):
            if not self.signal_members():
                return True
        return False

    def signal_members(self) -> bool:
        """SIGKILL every member once; False when there was none."""
        return kill_members(f"{self.dirs['pids']}/cgroup.procs")

    def remove(self) -> None:
        self._counters.close()
        for folder in self.dirs.values():
            try:
                os.rmdir(folder)
            except OSError:
                pass  # not there, or a member still dying: the next start-up removes it


@functools.cache
def _swap_accounted() -> bool:
    return os.path.exists(f"{V1_ROOT}/memory/memory.memsw.limit_in_bytes")


def remove_stale() -> None:
    """Groups left by a grader that was killed before it could close its sandbox: their processes (test
    children orphaned when the harness died with the grader) are killed, the groups removed."""
    for controller in CONTROLLERS:
        for folder in (V1_ROOT / controller).glob(PREFIX + "*"):
            if left_by_a_dead_grader(folder.name[len(PREFIX):]):
                stale = Group(folder.name[len(PREFIX):])
                stale.kill()
                try:
                    folder.rmdir()
                except OSError:
                    pass
