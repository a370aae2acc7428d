"""The cgroup v1 resource group: one group in each of the memory, pids and cpuacct hierarchies."""

from __future__ import annotations

import functools
import itertools
import os
import signal
from pathlib import Path

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
    probe = Group(f"probe-{os.getpid()}")
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
        self.name = PREFIX + (name or f"{os.getpid()}-{next(_counter)}")
        # Plain strings and os calls: a batch makes and removes a group per submission.
        self.dirs = {c: f"{V1_ROOT}/{c}/{self.name}" for c in CONTROLLERS}
        self._files: dict[str, int] = {}  # counters read after every test: opened once, read with pread

    def create(self, memory_bytes: int, processes: int) -> None:
        for folder in self.dirs.values():
            try:
                os.mkdir(folder, 0o755)
            except FileExistsError:
                pass
        memory = self.dirs["memory"]
        _write(f"{memory}/memory.limit_in_bytes", memory_bytes)
        if _swap_accounted():  # no swapping out either
            _write(f"{memory}/memory.memsw.limit_in_bytes", memory_bytes)
        _write(f"{self.dirs['pids']}/pids.max", processes)

    def add(self, pid: int) -> None:
        """Move a process in (the sandbox's, before it is sent anything to run)."""
        if pid <= 0:  # 0 would move the writer: the grader itself
            raise ProcessLookupError(f"no process {pid} to move into the sandbox's cgroup")
        for folder in self.dirs.values():
            _write(f"{folder}/cgroup.procs", pid)

    def cpu_seconds(self) -> float:
        try:
            return int(self._read("cpuacct", "cpuacct.usage")) / 1e9
        except (OSError, ValueError):
            return 0.0

    def oom_kills(self) -> int:
        try:
            for line in self._read("memory", "memory.oom_control").splitlines():
                if line.startswith(b"oom_kill "):
                    return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0

    def _read(self, controller: str, name: str) -> bytes:
        fd = self._files.get(name)
        if fd is None:
            fd = self._files[name] = os.open(f"{self.dirs[controller]}/{name}", os.O_RDONLY | os.O_CLOEXEC)
        return os.pread(fd, 4096, 0)

    def pids(self) -> list[int]:
        try:
            with open(f"{self.dirs['pids']}/cgroup.procs", "rb") as procs:
                return [int(p) for p in procs.read().split()]
        except (OSError, ValueError):
            return []

    def kill(self) -> bool:
        """SIGKILL every member until none is left (pids.max bounds how many a fork loop can add)."""
        for _ in range(100):
            if not self.signal_members():
                return True
        return False

    def signal_members(self) -> bool:
        """SIGKILL every member once; False when there was none."""
        members = self.pids()
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return bool(members)

    def remove(self) -> None:
        for fd in self._files.values():
            os.close(fd)
        self._files.clear()
        for folder in self.dirs.values():
            try:
                os.rmdir(folder)
            except OSError:
                pass  # not there, or a member still dying: the next start-up removes it


def _write(path: str, value: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, str(value).encode())
    finally:
        os.close(fd)


@functools.cache
def _swap_accounted() -> bool:
    return os.path.exists(f"{V1_ROOT}/memory/memory.memsw.limit_in_bytes")


def remove_stale() -> None:
    """Groups left by a grader that was killed before it could close its sandbox: their processes (test
    children orphaned when the harness died with the grader) are killed, the groups removed."""
    for controller in CONTROLLERS:
        for folder in (V1_ROOT / controller).glob(PREFIX + "*"):
            owner = folder.name[len(PREFIX):].split("-")[0]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                stale = Group(folder.name[len(PREFIX):])
                stale.kill()
                try:
                    folder.rmdir()
                except OSError:
                    pass
