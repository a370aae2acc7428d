"""The real backend: one forked process per submission, in the jail, sent one test at a time, killed whole."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from grader.background import in_background
from grader.sandbox.environments import readable_environments
from grader.model import Limits
from grader.sandbox import groups, linux, reaping, wire
from grader.sandbox.groups import ResourceGroup
from grader.sandbox.isolation import (Isolation, child_python, first_sandbox_of_process, netns_fd, refusal,
                                     start_netns_holder)
from grader.sandbox.jail import PRIVATE_SHM, Jail
from grader.sandbox.wire import Frame

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class ProcessBackend:
    """Sandboxes under the layers in force (see isolation.detect)."""

    def __init__(self, isolation: Isolation) -> None:
        self.isolation = isolation

    def describe(self) -> str:
        return self.isolation.describe()

    def prepare(self) -> None:
        if self.isolation.netns:
            try:
                start_netns_holder()  # its namespace is made on the other core while the file is read and checked
            except OSError:
                pass  # no fork to be had now: the start tries again and says why it cannot

    def start(self, limits: Limits, private_paths: tuple[Path, ...] = (), cpu_ceiling: float = 0.0) -> ProcessSession:
        reaping.become_subreaper()
        # Not dumpable: a sandbox running as our own uid (no root) cannot read /proc/<grader>/mem or environ.
        linux.prctl(linux.PR_SET_DUMPABLE, 0)
        iso = self.isolation
        # Where a test could leave files for the next one when neither a mount namespace nor Landlock keeps
        # it in its working folder (only with a dedicated uid: what it owns there is the submission's).
        clear_also = list(reaping.WORLD_WRITABLE) if iso.uid is not None and not (iso.mountns or iso.landlock) else []
        if iso.mountns:
            clear_also.append(PRIVATE_SHM)  # its own /dev/shm: nothing one test leaves there reaches the next
        session = self._session({"sweep": iso.signals_confined, "clear_also": clear_also}, limits,
                                tuple(str(p) for p in private_paths), cpu_ceiling or limits.cpu)
        try:
            session.launch()
        except BaseException:
            session.close()
            raise
        return session

    def _session(self, setup: dict[str, object], limits: Limits, private_paths: tuple[str, ...],
                 cpu_ceiling: float) -> ProcessSession:
        return ProcessSession(setup, limits, self.isolation, private_paths, cpu_ceiling)


class ProcessSession:
    """The submission loaded once under every layer; `run` has the harness fork one child per test."""

    def __init__(self, setup: dict[str, object], limits: Limits, isolation: Isolation,
                 private_paths: tuple[str, ...], cpu_ceiling: float) -> None:
        self.setup = setup  # the backend's part of what the harness loads; the submission's comes with `load`
        self.cpu_ceiling = cpu_ceiling
        self.limits = limits
        self.isolation = isolation
        self.private_paths = private_paths
        self.pid = 0
        self.workdir = ""
        self.group: ResourceGroup | None = None
        self.requests_w = self.replies_r = self.pidfd = -1
        self.children_before: set[int] = set()
        self._failure: Frame | None = None  # why it could not start, given as the load's reply
        self._last_counters: tuple[float, float, int] | None = None
        self._stat_fd = -1
        self._launched_at = 0.0
        self._admitting: Callable[[], None] | None = None  # waits until it is moved into its group

    # ------------------------------------------------------------ start
    def launch(self) -> None:
        """Start it, to wait for its submission (see `load`)."""
        refused = refusal(self.isolation)
        if refused:  # a grader_error verdict for every test: a batch shows it per student, nothing runs
            self._failure = Frame({"sandbox_error": refused}, 0.0, 0.0)
            return
        if self.isolation.netns:
            try:
                netns_fd()  # made (or waited for) here: the child joins it, and a holder's failure stops the start
            except OSError as error:
                self._failure = Frame({"sandbox_error": f"cannot make the sandbox's network namespace: {error}"},
                                      0.0, 0.0)
                return
        if self.isolation.cgroup:
            group = groups.new_group()
            size = (self.limits.memory + self.limits.file_size * 4 + 64) << 20  # + the tmpfs it may fill
            try:
                group.create(memory_bytes=size, processes=self.limits.processes)
            except OSError as error:  # the hierarchy went away since the probe was kept: no weaker sandbox
                group.remove()
                self._failure = Frame({"sandbox_error": f"cannot create the sandbox's cgroup: {error}"}, 0.0, 0.0)
                return
            self.group = group
        requests_r, self.requests_w = os.pipe()
        self.replies_r, replies_w = os.pipe()
        wire.widen(self.requests_w, self.replies_r)
        if not self.isolation.mountns:
            import tempfile  # only without a mount namespace, whose /tmp is private

            self.workdir = tempfile.mkdtemp(prefix="grader-")
            if self.isolation.uid is not None:
                os.chown(self.workdir, self.isolation.uid, self.isolation.uid)
        uid = self.isolation.uid
        jail = Jail(
            isolation=self.isolation,
            limits=self.limits,
            python=child_python(),
            workdir=self.workdir,
            private_paths=self.private_paths,
            cpu_ceiling=self.cpu_ceiling,
            nproc=self.limits.processes + (0 if uid is not None else reaping.tasks_of(os.getuid())),
            sweep_uid=uid is not None and first_sandbox_of_process(),
            readable=readable_environments(),
        )
        self.children_before = set(reaping.children())
        self.pid = self._spawn(jail, requests_r, replies_w)
        _OPEN_PIDS.add(self.pid)
        if uid is not None:
            _LIVE.opened(uid)
        self.pidfd = os.pidfd_open(self.pid)
        if self.group is not None:
            # Moving a process between v1 groups waits in the kernel for an RCU grace period, with the GIL
            # free: on a thread, while the child sets up its layers and starts Python, and the grader goes
            # on. `load` waits for it before it sends the submission: nothing of it starts outside the group.
            group, pid = self.group, self.pid
            self._admitting = in_background(lambda: self._admit(group, pid))

    def _spawn(self, jail: Jail, requests_r: int, replies_w: int) -> int:
        """Fork the child that enters the jail and execs the harness (sent first); the pipe ends are closed."""
        # Ctrl-C is held over the fork and comes right after it: Python runs imported modules' at-fork
        # handlers (logging's) as the fork returns, and a KeyboardInterrupt raised in one is printed and
        # dropped, which left `grader check --watch` running.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            pid = os.fork()
        except OSError:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            os.close(requests_r)
            os.close(replies_w)
            raise
        if pid == 0:  # pragma: no cover - runs in the child, reports failures on the reply pipe
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            jail.run(requests_r, replies_w)
        os.close(requests_r)
        os.close(replies_w)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C that came meanwhile is raised here
        wire.send(self.requests_w, wire.harness_frame())  # the harness starts, then waits for its set-up
        return pid

    def _wait_ended(self) -> None:
        """Wait for the killed sandbox process to end, and reap it."""
        try:
            os.waitpid(self.pid, 0)  # blocks while the kills land, instead of polling the group for them
        except ChildProcessError:
            pass

    def _admit(self, group: ResourceGroup, pid: int) -> None:
        try:
            group.add(pid)
        except OSError as error:  # the submission is never sent: it has run nothing, outside its group or in
            self._failure = Frame({"sandbox_error": f"cannot start the sandbox: {error}"}, 0.0, 0.0)

    def _admitted(self) -> None:
        if self._admitting is not None:
            self._admitting()
            self._admitting = None

    def load(self, setup: dict[str, object], wall_seconds: float) -> Frame:
        """Hand it the submission and wait for the reply: loaded, or why not, within the wall time."""
        self._admitted()
        if self._failure is not None:
            return self._failure
        self.setup = {**setup, **self.setup}
        wire.send(self.requests_w, wire.framed(self.setup))
        self._launched_at = time.monotonic()
        self._last_counters = self._counters()  # the load's CPU counts from here: not the harness's start
        frame = self._receive(wall_seconds, seq=None, started=self._launched_at)
        limit, margin = self.setup.get("load_cpu"), self.setup.get("margin", 1.0)
        if isinstance(limit, (int, float)) and isinstance(margin, (int, float)) and limit > 0:
            # Our own reading decides: stopped by SIGPROF (or the backstop) past half the limit (the timer
            # counts sampled ticks, which run ahead of our exact reading under load: see replies.py), or
            # loaded after all but far past it (it disarmed the timer): either way it ran out of time.
            stopped = frame.failure == "died" and frame.cpu_seconds >= limit * 0.5
            if stopped or (not frame.failure and frame.cpu_seconds > limit * margin):
                frame = replace(frame, data=None, failure="timeout")
        return frame

    # ------------------------------------------------------------ talk
    def run(self, request: dict[str, object], wall_seconds: float) -> Frame:
        wire.send(self.requests_w, wire.framed(request))
        return self._receive(wall_seconds, request.get("seq"))  # type: ignore[arg-type]

    def _receive(self, wall_seconds: float, seq: int | None, started: float | None = None) -> Frame:
        """The next reply (with this seq), within the wall time from `started` (default: now)."""
        started = time.monotonic() if started is None else started
        # The sandbox sits idle between a reply and the next request, so the counters read after the
        # last reply are still the "before" of this one: one read per test instead of two.
        cpu_before, group_before, oom_before = self._last_counters or self._counters()
        deadline = started + wall_seconds
        while True:
            data, failure = wire.read_frame(self.replies_r, self.pidfd, deadline)
            if failure or data is None or seq is None or data.get("seq") == seq:
                break
        wall = time.monotonic() - started
        self._last_counters = cpu_after, group_after, oom_after = self._counters()
        cpu = cpu_after - cpu_before
        if self.group is not None:  # every process of the submission, reaped or not, forged reply or not
            cpu = max(cpu, group_after - group_before)
        return Frame(data, wall, max(cpu, 0.0), failure, oom_after > oom_before)

    def _counters(self) -> tuple[float, float, int]:
        """(CPU from /proc, CPU of the cgroup, OOM kills in the cgroup), all read by us."""
        if self.group is None:
            return self.cpu_seconds(), 0.0, 0
        return self.cpu_seconds(), self.group.cpu_seconds(), self.group.memory_hits()

    def cpu_seconds(self) -> float:
        """CPU of the sandbox process and its reaped children, read by us: the sandbox cannot under-report."""
        try:
            if self._stat_fd < 0:  # opened once, read again with pread: two counters are read per test
                self._stat_fd = os.open(f"/proc/{self.pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
            fields = os.pread(self._stat_fd, 4096, 0).rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            return 0.0
        return sum(int(x) for x in fields[11:15]) / CLOCK_TICKS

    # ------------------------------------------------------------ stop
    def close(self) -> None:
        """Kill every process of the submission, escaped ones included, and remove its files. Safe to call
        again, and after a launch that failed half-way."""
        self._admitted()
        if self.pid:
            self._kill_all()
        for fd in (self.requests_w, self.replies_r, self.pidfd, self._stat_fd):
            if fd >= 0:
                os.close(fd)
        self.requests_w = self.replies_r = self.pidfd = self._stat_fd = -1
        if self.workdir:
            import shutil

            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = ""
        if self.group is not None:
            self.group.remove()
            self.group = None

    def _kill_all(self) -> None:
        for kill in (os.killpg, os.kill):  # the process too: a sandbox closed at once may not lead its group yet
            try:
                kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
        if self.group is not None:
            self.group.signal_members()
        self._wait_ended()
        emptied = self.group is not None and self.group.kill()
        uid = self.isolation.uid
        # The uid-wide sweeps below would also kill (and empty the folder of) another sandbox of this process
        # that is still open: one started ahead, or the one a student's check waits with while the reference
        # computes the expected values. The last sandbox of the uid to close sweeps for all of them.
        last = uid is not None and _LIVE.closed(uid, swept_by_group=emptied)
        if uid is not None and last and _LIVE.pay_sweep(uid):
            reaping.kill_all_of(uid)  # a forked helper: only when no (empty) cgroup vouches for every one
        _OPEN_PIDS.discard(self.pid)
        # Another sandbox of this process started after this one is a child too, not an orphan of this one
        # (a search keeps the reference's open beside the submission's, grader/search).
        reaping.reap_orphans(keep=self.children_before | _OPEN_PIDS)
        if uid is not None and last and not (self.isolation.mountns or self.isolation.landlock):
            reaping.remove_files_of(uid)
        self.pid = 0


class _LiveSandboxes:
    """How many sandboxes of this process are open per uid, and which uids owe a sweep once they all close."""

    def __init__(self) -> None:
        self.open: dict[int, int] = {}
        self.owed: set[int] = set()

    def opened(self, uid: int) -> None:
        self.open[uid] = self.open.get(uid, 0) + 1

    def closed(self, uid: int, swept_by_group: bool) -> bool:
        """One closes (its cgroup emptied or not); True when it was the last open one of `uid`."""
        if not swept_by_group:
            self.owed.add(uid)
        self.open[uid] = left = max(self.open.get(uid, 1) - 1, 0)
        return left == 0

    def pay_sweep(self, uid: int) -> bool:
        """Whether a sweep of the uid is owed; it is paid by the caller."""
        owed = uid in self.owed
        self.owed.discard(uid)
        return owed


_LIVE = _LiveSandboxes()
_OPEN_PIDS: set[int] = set()  # the first process of each open sandbox of this process
