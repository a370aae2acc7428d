"""The cgroup v2 resource group: one group in the unified hierarchy, with memory.max, pids.max, cpu.stat,
memory.events and cgroup.kill. Groups are made at the hierarchy's root (the one cgroup that may both hold
processes and hand controllers down), so the layer needs root and the memory and pids controllers there."""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

from grader.sandbox.groups.files import Counters, kill_members, left_by_a_dead_grader, members, owner_tag, write

PREFIX = "grader-"
NEEDED = ("memory", "pids")
_counter = itertools.count(1)


def hierarchy() -> Path:
    """The unified hierarchy: /sys/fs/cgroup on a v2-only host, /sys/fs/cgroup/unified in hybrid mode."""
    for root in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified")):
        if (root / "cgroup.controllers").is_file():
            return root
    return Path("/sys/fs/cgroup")


def present() -> bool:
    return (hierarchy() / "cgroup.controllers").is_file()


def unavailable() -> str:
    """Why the v2 group cannot be used here ('' when it can): root, and memory and pids handed to children."""
    if os.geteuid() != 0:
        return "needs root"
    root = hierarchy()
    if not present():
        return f"no cgroup v2 hierarchy at {root}"
    try:
        offered = (root / "cgroup.controllers").read_text().split()
        missing = [name for name in NEEDED if name not in offered]
        if missing:
            return f"cgroup v2 at {root} offers no {' and no '.join(missing)} controller (bound to v1, or not delegated)"
        enabled = (root / "cgroup.subtree_control").read_text().split()
        wanted = " ".join(f"+{name}" for name in NEEDED if name not in enabled)
        if wanted:
            (root / "cgroup.subtree_control").write_text(wanted)
    except OSError as error:
        return f"cannot hand the memory and pids controllers down at {root}: {error.strerror or error}"
    probe = Group(f"probe-{owner_tag()}")  # two PID 1s (containers on one hierarchy) probe apart
    try:
        probe.create(memory_bytes=64 << 20, processes=8)
    except OSError as error:
        return f"cannot create a group: {error.strerror or error}"
    finally:
        probe.remove()
    return ""


class Group:
    """One group, named after this grader process."""

    def __init__(self, name: str | None = None, root: Path | None = None) -> None:
        self.name = PREFIX + (name or f"{owner_tag()}-{next(_counter)}")
        self.dir = f"{root or hierarchy()}/{self.name}"
        self._counters = Counters()

    def create(self, memory_bytes: int | None, processes: int | None) -> None:
        """Make the group with these limits (None: that limit is not set, for a hierarchy without the
        controller; the sandbox always sets both)."""
        try:
            os.mkdir(self.dir, 0o755)
        except FileExistsError:
            pass
        if memory_bytes is not None:
            write(f"{self.dir}/memory.max", memory_bytes)
            if os.path.exists(f"{self.dir}/memory.swap.max"):  # no swapping out either
                write(f"{self.dir}/memory.swap.max", 0)
        if processes is not None:
            write(f"{self.dir}/pids.max", processes)

    def add(self, pid: int) -> None:
        if pid <= 0:  # 0 would move the writer
            raise ProcessLookupError(f"no process {pid} to move into the sandbox's cgroup")
        write(f"{self.dir}/cgroup.procs", pid)

    def cpu_seconds(self) -> float:
        return self._counters.field(f"{self.dir}/cpu.stat", b"usage_usec") / 1e6

    def memory_hits(self) -> int:
        events = f"{self.dir}/memory.events"
        return self._counters.field(events, b"max") + self._counters.field(events, b"oom_kill")

    def pids(self) -> list[int]:
        return members(f"{self.dir}/cgroup.procs")

    def signal_members(self) -> bool:
        return kill_members(f"{self.dir}/cgroup.procs")

    def kill(self) -> bool:
        """cgroup.kill (kernel >= 5.14) kills every member at once, forks in flight included; then wait
        for the group to empty. Without it, SIGKILL the members round after round."""
        try:
            write(f"{self.dir}/cgroup.kill", 1)
        except OSError:
            pass  # an older kernel: the rounds below do it
        for _ in range(200):
            if not self.signal_members():
                return True
            time.sleep(0.005)
        return False

    def remove(self) -> None:
        self._counters.close()
        try:
            os.rmdir(self.dir)
        except OSError:
            pass  # not there, or a member still dying: the next start-up removes it


def remove_stale() -> None:
    """Groups left by a grader killed before it closed its sandbox: their processes killed, groups removed."""
    root = hierarchy()
    for folder in root.glob(PREFIX + "*"):
        if left_by_a_dead_grader(folder.name[len(PREFIX):]):
            stale = Group(folder.name[len(PREFIX):], root)
            stale.kill()
            stale.remove()
