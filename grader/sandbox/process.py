"""One sandboxed process per submission: start it under every layer, send it tests, read replies, kill it whole."""

from __future__ import annotations

import _thread
import fcntl
import functools
import json
import marshal
import os
import resource
import select
import signal
import sys
import time
import types
from dataclasses import dataclass, field
from pathlib import Path

from grader.cache import cache_dir, key_hash, write_atomically
from grader.model import Limits
from grader.sandbox import cgroup, linux
from grader.sandbox.isolation import (Isolation, child_python, first_sandbox_of_process, helper_pids, kill_all_of,
                                      netns_fd)

HARNESS = (Path(__file__).with_name("harness.py")).read_text()
# What the sandbox's interpreter is started with: it runs the harness that the grader sends first on fd 3,
# compiled once and kept (compiled from -c text, it cost every sandbox ~8 ms of CPU), or compiles the
# source sent along when its bytecode is another Python version's.
BOOTSTRAP = """\
import marshal, os, sys
def _harness():
    def exact(size):
        data = b""
        while len(data) < size:
            chunk = os.read(3, size - len(data))
            if not chunk:
                os._exit(0)
            data += chunk
        return data
    tag, code, source = marshal.loads(exact(int.from_bytes(exact(4), "big")))
    return marshal.loads(code) if tag == sys.implementation.cache_tag else compile(source, "<harness>", "exec")
exec(_harness())
"""
REPLY_CAP = 12 << 20  # bytes: a reply frame larger than this is the submission's fault
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# What a sandboxed interpreter may read when Landlock is on; everything else on disk is invisible.
SYSTEM_READ_ONLY = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc/ld.so.cache", "/etc/localtime",
                    "/dev/null", "/dev/urandom", "/dev/zero")
# With a mount namespace every top-level folder but these is covered by an empty tmpfs (the interpreter's
# own prefix excepted), whatever its permissions: a world-readable checkout anywhere is out of sight.
KEPT = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/proc", "/dev", "/sys", "/tmp")
ALSO_HIDDEN = ("/dev/shm", "/dev/mqueue")  # world-writable: nothing may be left there for later
WORLD_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm")
MS_NOEXEC, MS_MOVE = 8, 8192  # swept for the slot uid's files when nothing hides them


@dataclass(frozen=True)
class Frame:
    """A reply from the sandbox, or why none came."""

    data: dict[str, object] | None
    wall_seconds: float
    cpu_seconds: float  # the parent's own reading of the sandbox's CPU, from /proc
    failure: str = ""  # "timeout", "died", "garbled", "oversized"
    oom_killed: bool = False  # the memory cgroup killed one of the submission's processes


def _locked() -> _thread.LockType:
    lock = _thread.allocate_lock()
    lock.acquire()
    return lock


@dataclass
class Ahead:
    """A request that the launching thread sends before the caller asks for it, and its reply once read:
    `ready` is released then, with `frame` None if that thread stopped before it."""

    message: dict[str, object]
    wall_seconds: float
    ready: _thread.LockType = field(default_factory=_locked)
    frame: Frame | None = None


class Sandbox:
    """The submission loaded once under every layer; `run` forks one child per test inside it."""

    def __init__(self, setup: dict[str, object], limits: Limits, isolation: Isolation,
                 private_paths: tuple[Path, ...] = ()) -> None:
        self.setup = setup
        self.limits = limits
        self.isolation = isolation
        self.private_paths = tuple(str(p) for p in private_paths)
        self.pid = 0
        self.workdir = ""
        self.group: cgroup.Group | None = None
        self.requests_w = self.replies_r = self.pidfd = -1
        self._last_counters: tuple[float, float, int] | None = None
        self._stat_fd = -1
        self._launched_at = 0.0
        self._admitting: _thread.LockType | None = None  # held while a thread moves it into its cgroup
        self._admit_error: BaseException | None = None
        self._ahead: list[Ahead] = []  # the load's reply first, then the tests run ahead
        self._ahead_error: BaseException | None = None

    # ------------------------------------------------------------ start
    def launch(self, background: bool = False, load_seconds: float = 0.0,
               ahead: tuple[tuple[dict[str, object], float], ...] = ()) -> Frame | None:
        """Start it and hand it the submission, without waiting for the load: None, or the Frame of a start
        that failed. `background`: the caller has other work; the wait to move the process into its cgroup
        (an RCU grace period, ~15-20 ms) is then spent in a thread, which then reads the load's reply (within
        `load_seconds`) and runs each (request, wall seconds) of `ahead`: those tests run on another core
        while the caller works, and `take` hands over their replies."""
        if self.isolation.netns:
            try:
                netns_fd()  # made (or waited for) here: the child joins it, and a holder's failure stops the start
            except OSError as error:
                return Frame({"sandbox_error": f"cannot make the sandbox's network namespace: {error}"}, 0.0, 0.0)
        if self.isolation.cgroup:
            self.group = cgroup.Group()
            size = (self.limits.memory + self.limits.file_size * 4 + 64) << 20  # + the tmpfs it may fill
            try:
                self.group.create(memory_bytes=size, processes=self.limits.processes)
            except OSError as error:  # the hierarchy went away since the probe was kept: no weaker sandbox
                self.group.remove()
                self.group = None
                return Frame({"sandbox_error": f"cannot create the sandbox's cgroup: {error}"}, 0.0, 0.0)
        requests_r, self.requests_w = os.pipe()
        self.replies_r, replies_w = os.pipe()
        if not self.isolation.mountns:
            import tempfile  # only without a mount namespace, whose /tmp is private

            self.workdir = tempfile.mkdtemp(prefix="grader-")
            if self.isolation.uid is not None:
                os.chown(self.workdir, self.isolation.uid, self.isolation.uid)
        python = child_python()
        self.nproc = self.limits.processes + (0 if self.isolation.uid is not None else _tasks_of(os.getuid()))
        self.children_before = set(_children())
        self.sweep_uid = self.isolation.uid is not None and first_sandbox_of_process()
        try:
            self.pid = os.fork()
        except OSError:
            os.close(requests_r)
            os.close(replies_w)
            raise
        if self.pid == 0:  # pragma: no cover - runs in the child, reports failures on the reply pipe
            try:
                self._enter(python, requests_r, replies_w)
            except BaseException as error:  # noqa: BLE001
                message = f"sandbox set-up failed: {error}"
                try:
                    data = json.dumps({"sandbox_error": message}).encode()
                    try:
                        os.write(replies_w, len(data).to_bytes(4, "big") + data)
                    except OSError:  # closed once it was moved to fd 4 (the exec itself failed)
                        os.write(4, len(data).to_bytes(4, "big") + data)
                finally:
                    os._exit(127)
            os._exit(127)
        os.close(requests_r)
        os.close(replies_w)
        self.pidfd = os.pidfd_open(self.pid)
        self.send_frame(harness_frame())  # ahead of the set-up, which waits for the cgroup
        if background:  # _thread, the C module: `threading` takes milliseconds to import, while a student waits
            done = _locked()
            self._ahead = [Ahead({}, load_seconds), *(Ahead(m, w) for m, w in ahead)]
            try:
                _thread.start_new_thread(self._admit, (self.pid, done))
            except RuntimeError:  # no thread to be had: move it in here; the caller sends every test itself
                self._ahead = []
                self._admit(self.pid)
            else:
                self._admitting = done
        else:
            self._admit(self.pid)
        return None

    def ran_ahead(self) -> bool:
        """Whether a thread was given tests to run (see launch)."""
        return len(self._ahead) > 1

    def _admit(self, pid: int, done: _thread.LockType | None = None) -> None:
        """Move the sandbox into its cgroup and send the set-up; in a thread (`done`), go on with the tests
        run ahead. `pid` is passed in: close() may clear self.pid meanwhile."""
        try:
            if self.group is not None:
                # Moving a process between v1 groups waits for an RCU grace period: done while the child
                # sets up its layers and starts Python. No submission code runs before the setup below
                # reaches it, so nothing of the submission starts outside the group.
                self.group.add(pid)
            self.send(self.setup)
            self._launched_at = time.monotonic()
            self._last_counters = self._counters()  # the load's CPU counts from here, however late it is read
        except BaseException as error:  # noqa: BLE001 - raised again by loaded(), in the caller's thread
            self._admit_error = error
        try:
            if self._ahead and self._admit_error is None:
                self._read_ahead()
        except BaseException as error:  # noqa: BLE001 - raised again by _reply(), in the caller's thread
            self._ahead_error = error
        finally:
            for entry in self._ahead:
                if entry.frame is None:  # never reached (a reply read was released at once, and may be held now)
                    entry.ready.release()
            if done is not None:
                done.release()

    def _read_ahead(self) -> None:
        """In the launching thread: the load's reply, then each test in turn, sent and read as the caller's
        own thread would (one request at a time: the sandbox never holds the next test's request before it
        has answered this one, whose CPU is read from /proc and the cgroup as the reply arrives). A short
        switch interval lets this thread in at once while the caller's thread runs Python code."""
        interval = sys.getswitchinterval()
        sys.setswitchinterval(0.0005)
        try:
            load, *tests = self._ahead
            load.frame = self.receive(load.wall_seconds, None, self._launched_at)
            load.ready.release()
            if load.frame.failure or (load.frame.data or {}).get("loaded") is not True:
                return
            for entry in tests:
                self.send(entry.message)
                entry.frame = self.receive(entry.wall_seconds, entry.message.get("seq"))
                entry.ready.release()
                if entry.frame.failure:
                    return
        finally:
            sys.setswitchinterval(interval)

    def take(self, seq: int) -> Frame | None:
        """The reply to a test run ahead with this seq, once it is in; None when there was none (not run
        ahead, or the thread stopped before it: the load or an earlier test failed)."""
        for entry in self._ahead[1:]:
            if entry.message.get("seq") == seq:
                return self._reply(entry)
        return None

    def _reply(self, entry: Ahead) -> Frame | None:
        """The entry's reply once the thread is past it (None: it stopped before); its error is raised here."""
        with entry.ready:
            pass
        if self._ahead_error is not None:
            error, self._ahead_error = self._ahead_error, None
            raise error
        return entry.frame

    def settle(self) -> None:
        """Wait until the launching thread is done with the pipes (before this one sends a request)."""
        if self._admitting is not None:
            self._admitting.acquire()
            self._admitting = None

    def loaded(self, load_seconds: float) -> Frame:
        """The reply to the set-up: the submission loaded, or why not; the wall limit counts from launch."""
        if self._ahead and (frame := self._reply(self._ahead[0])) is not None:
            return frame
        self.settle()
        if self._admit_error is not None:
            error, self._admit_error = self._admit_error, None
            if not isinstance(error, OSError):
                raise error
            # The submission was never sent: it has run nothing, and runs nothing outside its group.
            return Frame({"sandbox_error": f"cannot start the sandbox: {error}"}, 0.0, 0.0)
        return self.receive(load_seconds, seq=None, started=self._launched_at)

    def _enter(self, python: str, requests_r: int, replies_w: int) -> None:
        """In the forked child: put on every layer, then exec the harness. Order matters (see comments)."""
        iso, limits = self.isolation, self.limits
        os.setsid()
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # the sandbox dies with the grader
        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)  # no setuid program gives root back, whatever the layers
        linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)  # kept across exec: the harness reaps escaped helpers
        if iso.netns:
            linux.setns(netns_fd(), linux.CLONE_NEWNET)
        workdir = self.workdir
        if iso.mountns:  # before dropping root: mounting needs it
            linux.unshare(linux.CLONE_NEWNS | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS)
            linux.mount("none", "/", None, linux.MS_REC | linux.MS_PRIVATE)
            files: list[str] = []
            for path in hidden_folders(python, self.private_paths, files):
                linux.mount("tmpfs", path, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=4k,mode=0755")
            for path in files:
                linux.mount("/dev/null", path, None, linux.MS_BIND)
            _private_proc()
            _private_dev()
            size = limits.file_size * 4 + 8
            linux.mount("tmpfs", "/tmp", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, f"size={size}m,mode=0755")
            workdir = "/tmp/work"
            os.mkdir(workdir, 0o700)
            if iso.uid is not None:
                os.chown(workdir, iso.uid, iso.uid)
        # Lift every source above the targets first: a pipe may already sit on fd 3 or 4, and dup2 onto
        # itself would neither move it nor clear its close-on-exec flag.
        devnull = os.open("/dev/null", os.O_RDWR)
        sources = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (devnull, requests_r, replies_w)]
        for target, source in ((0, sources[0]), (1, sources[0]), (2, sources[0]), (3, sources[1]), (4, sources[2])):
            os.dup2(source, target)
        os.closerange(5, 65536)
        if iso.uid is not None:
            os.setgroups([])
            os.setgid(iso.uid)
            os.setuid(iso.uid)
            if self.sweep_uid:  # what a grader killed while it held this uid left running; before
                os.kill(-1, signal.SIGKILL)  # Landlock, whose signal scope would spare it (kill(-1) spares us)
        if iso.landlock:
            prefix = os.path.dirname(os.path.dirname(python))
            read_only = [*SYSTEM_READ_ONLY, prefix] if prefix not in ("", "/") else list(SYSTEM_READ_ONLY)
            linux.landlock_restrict(read_only, [workdir])
        cpu = int(max(self.setup_cpu_ceiling(), 1)) + 1
        for which, value in (
            (resource.RLIMIT_CPU, (cpu, cpu + 1)),
            (resource.RLIMIT_AS, (limits.memory << 20,) * 2),
            (resource.RLIMIT_FSIZE, (limits.file_size << 20,) * 2),
            (resource.RLIMIT_NOFILE, (limits.open_files,) * 2),
            (resource.RLIMIT_CORE, (0, 0)),
        ):
            resource.setrlimit(which, value)
        if iso.uid is not None or os.geteuid() != 0:
            # RLIMIT_NPROC counts every task of the real uid and means nothing to root. With a dedicated uid
            # the submission has it to itself; run as the teacher's own uid, it gets what is in use + its share.
            # Set after setuid: leftovers still dying would otherwise fail the exec below (EAGAIN).
            resource.setrlimit(resource.RLIMIT_NPROC, (self.nproc,) * 2)
        os.chdir(workdir)
        if iso.seccomp:
            linux.install_seccomp_filter()  # last: it also forbids the mount and setns calls above
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": workdir}
        os.execve(python, [python, "-I", "-S", "-B", "-c", BOOTSTRAP], env)

    def setup_cpu_ceiling(self) -> float:
        return float(self.setup.get("cpu_ceiling", self.limits.cpu))  # type: ignore[arg-type]

    # ------------------------------------------------------------ talk
    def send(self, message: dict[str, object]) -> None:
        data = marshal.dumps(message)
        self.send_frame(len(data).to_bytes(4, "big") + data)

    def send_frame(self, frame: bytes) -> None:
        view = memoryview(frame)
        try:
            while view:  # a write into a full pipe can end part-way (a signal): the rest follows
                view = view[os.write(self.requests_w, view):]
        except (BrokenPipeError, OSError):
            pass  # the sandbox died; receive() reports it

    def receive(self, wall_seconds: float, seq: int | None, started: float | None = None) -> Frame:
        """The next reply (with this seq), within the wall time from `started` (default: now). Death is seen
        through the pidfd, not EOF: an escaped grandchild may hold the reply pipe open."""
        started = time.monotonic() if started is None else started
        # The sandbox sits idle between a reply and the next request, so the counters read after the
        # last reply are still the "before" of this one: one read per test instead of two.
        cpu_before, group_before, oom_before = self._last_counters or self._counters()
        deadline = started + wall_seconds
        while True:
            data, failure = self._read_frame(deadline)
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
        return self.cpu_seconds(), self.group.cpu_seconds(), self.group.oom_kills()

    def _read_frame(self, deadline: float) -> tuple[dict[str, object] | None, str]:
        buffer = b""
        need = 4
        while len(buffer) < need:
            left = deadline - time.monotonic()
            if left <= 0:
                return None, "timeout"
            ready = select.select([self.replies_r, self.pidfd], [], [], left)[0]
            if not ready:
                return None, "timeout"
            if self.replies_r not in ready:
                return None, "died"
            chunk = os.read(self.replies_r, min(need - len(buffer), 1 << 20))
            if not chunk:
                return None, "died"
            buffer += chunk
            if need == 4 and len(buffer) == 4:
                need += int.from_bytes(buffer, "big")
                if need > REPLY_CAP:
                    return None, "oversized"
        data = decode(buffer[4:])
        return (data, "") if isinstance(data, dict) else (None, "garbled")

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
        if self._admitting is not None and self._admitting.locked() and self.pid:  # its thread still runs
            # A thread may be waiting on a test, or on a helper holding a pipe: they end now. Nothing is
            # reaped before it is done, so the pid it may still move into the cgroup stays the sandbox's.
            self._signal()
            if self.group is None and self.isolation.uid is not None:
                kill_all_of(self.isolation.uid)
        self.settle()  # never remove a group, nor close a pipe, that a thread still uses
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

    def _signal(self) -> None:
        """SIGKILL the sandbox, its process group and every member of its cgroup; nothing is reaped."""
        for kill in (os.killpg, os.kill):  # the process too: a sandbox closed at once may not lead its group yet
            try:
                kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
        if self.group is not None:
            self.group.signal_members()

    def _kill_all(self) -> None:
        self._signal()
        try:
            os.waitpid(self.pid, 0)  # blocks while the kills land, instead of polling the group for them
        except ChildProcessError:
            pass
        emptied = self.group is not None and self.group.kill()
        if self.isolation.uid is not None and not emptied:
            kill_all_of(self.isolation.uid)  # a forked helper: only when no (empty) cgroup vouches for it
        reap_orphans(keep=self.children_before)
        if self.isolation.uid is not None and not (self.isolation.mountns or self.isolation.landlock):
            remove_files_of(self.isolation.uid, WORLD_WRITABLE)
        self.pid = 0


DEVICES = ("null", "zero", "full", "random", "urandom")


def _private_dev() -> None:
    """A /dev with only the harmless devices: no /dev/kmsg, terminals, disks, /dev/shm. It is built on a
    tmpfs at /tmp (covered right after) and moved onto /dev, since binding needs the old devices in sight."""
    linux.mount("tmpfs", "/tmp", "tmpfs", linux.MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755")
    for name in DEVICES:
        open(f"/tmp/{name}", "w").close()
        linux.mount(f"/dev/{name}", f"/tmp/{name}", None, linux.MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"/tmp/{name}")
    os.mkdir("/tmp/shm", 0o755)
    linux.mount("/tmp", "/dev", None, MS_MOVE)


def _private_proc() -> None:
    """A /proc of our own that shows only the processes of the submission's uid: no cmdline or environ of
    the grader, the teacher's shell or another sandbox (older kernels: the whole /proc, hidepid=2)."""
    for options in ("hidepid=invisible,subset=pid", "hidepid=2"):
        try:
            linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | MS_NOEXEC, options)
            return
        except OSError:
            continue


def decode(data: bytes) -> object:
    """A reply's JSON, tags turned back into tuples, sets, dicts and bytes; None when unreadable.
    json.loads is C and linear: a hostile 12 MB reply costs seconds, not the minutes of ast.literal_eval."""
    try:
        return json.loads(data, object_hook=_untag)
    except (ValueError, TypeError, RecursionError, MemoryError, UnicodeError, AttributeError):
        return None


_TAGS = {"$t": tuple, "$s": set, "$d": lambda pairs: {k: v for k, v in pairs}, "$b": lambda s: s.encode("latin-1")}


def _untag(obj: dict[str, object]) -> object:
    if len(obj) == 1:
        (key, inner), = obj.items()
        if key in _TAGS:
            return _TAGS[key](inner)
    return obj


def hidden_folders(python: str, private: tuple[str, ...] = (), files: list[str] | None = None) -> list[str]:
    """The folders to cover with an empty tmpfs: every top-level folder but the system ones, and along the
    interpreter's path (when it lives elsewhere, e.g. a venv in /home) every sibling of that path. The plain
    files met on the way (/root/.bash_history, /container_info.json) go into `files`, to cover one by one."""
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(python)))
    found: list[str] = []

    def walk(folder: str) -> None:
        try:  # scandir: the entries' types come with the listing, not from a stat per entry (runs per sandbox)
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            return
        for entry in entries:
            path = entry.path
            if entry.is_symlink():
                continue
            if files is not None and entry.is_file(follow_symlinks=False):
                files.append(path)
            if not entry.is_dir(follow_symlinks=False) or path in KEPT:
                continue
            if prefix == path or prefix.startswith(path + "/"):
                if prefix != path:
                    walk(path)
            else:
                found.append(path)

    walk("/")
    # Outer folders first, and none inside one already covered: once /x is covered, /x/y no longer exists.
    for path in sorted({os.path.realpath(p) for p in (*private, *ALSO_HIDDEN)}, key=len):
        if (os.path.isdir(path) and not any(path.startswith(f + "/") or path == f for f in found)
                and not prefix.startswith(path + "/") and path != prefix):
            found.append(path)
    return found


def remove_files_of(uid: int, folders: tuple[str, ...]) -> None:
    """Without a mount namespace or Landlock the submission could write in world-writable folders: remove
    what its uid owns there (only a dedicated uid makes this safe)."""
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    import shutil

                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass


def _tasks_of(uid: int) -> int:
    """How many tasks (threads included: RLIMIT_NPROC counts them) the uid runs now."""
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{name}/task"))
            except OSError:
                continue
    return count


def become_subreaper() -> None:
    """Orphans of the sandbox come back to us instead of pid 1, so close() can find and kill them."""
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)


def reap_orphans(keep: set[int]) -> None:
    """Kill and reap children re-parented to us (escapees that left the sandbox's process group); the
    children we had before the sandbox started (`keep`) and our helpers are left alone."""
    keep = keep | helper_pids()
    for _ in range(100):
        orphans = [pid for pid in _children() if pid not in keep]
        if not orphans:
            return
        for pid in orphans:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


def _children() -> list[int]:
    pids: list[int] = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as children:
                pids += [int(pid) for pid in children.read().split()]
        except OSError:
            continue
    return pids


@functools.cache  # once per process
def harness_frame() -> bytes:
    """The bootstrap's first frame: (our bytecode's tag, the harness compiled, its source)."""
    tag = sys.implementation.cache_tag
    data = marshal.dumps((tag, _compiled_harness(tag), HARNESS))
    return len(data).to_bytes(4, "big") + data


def _compiled_harness(tag: str) -> bytes:
    """The harness compiled and marshalled, kept in the cache folder (keyed by its source and the bytecode
    tag): compiling it costs the grader ~3 ms. Keeping it is only a saving, never a reason to fail."""
    try:
        path = cache_dir() / f"harness-{key_hash((tag + HARNESS).encode()).hexdigest()}.marshal"
    except OSError:
        return marshal.dumps(compile(HARNESS, "<harness>", "exec"))
    try:
        code = path.read_bytes()
        if isinstance(marshal.loads(code), types.CodeType):  # a damaged copy would break every sandbox
            return code
    except (OSError, EOFError, ValueError, TypeError):
        pass
    code = marshal.dumps(compile(HARNESS, "<harness>", "exec"))
    try:
        write_atomically(path, code)
    except OSError:
        pass
    return code
