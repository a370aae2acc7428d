"""One sandboxed process per submission: start it under every layer, send it tests, read replies, kill it whole."""

from __future__ import annotations

import ast
import fcntl
import marshal
import os
import resource
import select
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from grader.model import Limits
from grader.sandbox import linux
from grader.sandbox.isolation import Isolation, child_python, helper_pids, kill_all_of, netns_fd

HARNESS = (Path(__file__).with_name("harness.py")).read_text()
REPLY_CAP = 12 << 20  # bytes: a reply frame larger than this is the submission's fault
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# What a sandboxed interpreter may read when Landlock is on; everything else on disk is invisible.
SYSTEM_READ_ONLY = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc/ld.so.cache", "/etc/localtime",
                    "/dev/null", "/dev/urandom", "/dev/zero")
# Hidden behind an empty tmpfs when the mount namespace is available, whatever their permissions.
ALWAYS_HIDDEN = ("/root", "/home", "/var/tmp", "/srv", "/mnt", "/media", "/opt", "/run")
NEVER_HIDDEN = ("/", "/usr", "/lib", "/lib64", "/bin", "/etc", "/proc", "/dev", "/sys", "/tmp")


@dataclass(frozen=True)
class Frame:
    """A reply from the sandbox, or why none came."""

    data: dict[str, object] | None
    wall_seconds: float
    cpu_seconds: float  # the parent's own reading of the sandbox's CPU, from /proc
    failure: str = ""  # "timeout", "died", "garbled", "oversized"


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

    # ------------------------------------------------------------ start
    def start(self, load_seconds: float) -> Frame:
        requests_r, self.requests_w = os.pipe()
        self.replies_r, replies_w = os.pipe()
        if not self.isolation.mountns:
            self.workdir = tempfile.mkdtemp(prefix="grader-")
            if self.isolation.uid is not None:
                os.chown(self.workdir, self.isolation.uid, self.isolation.uid)
        python = child_python()
        self.children_before = set(_children())
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - runs in the child, reports failures on the reply pipe
            try:
                self._enter(python, requests_r, replies_w)
            except BaseException as error:  # noqa: BLE001
                message = f"sandbox set-up failed: {error}"
                try:
                    data = repr({"sandbox_error": message}).encode()
                    os.write(replies_w, len(data).to_bytes(4, "big") + data)
                finally:
                    os._exit(127)
            os._exit(127)
        os.close(requests_r)
        os.close(replies_w)
        self.pidfd = os.pidfd_open(self.pid)
        self.send(self.setup)
        return self.receive(load_seconds, seq=None)

    def _enter(self, python: str, requests_r: int, replies_w: int) -> None:
        """In the forked child: put on every layer, then exec the harness. Order matters (see comments)."""
        iso, limits = self.isolation, self.limits
        os.setsid()
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # the sandbox dies with the grader
        if iso.netns:
            linux.setns(netns_fd(), linux.CLONE_NEWNET)
        workdir = self.workdir
        if iso.mountns:  # before dropping root: mounting needs it
            linux.unshare(linux.CLONE_NEWNS | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS)
            linux.mount("none", "/", None, linux.MS_REC | linux.MS_PRIVATE)
            for path in (*self.private_paths, *ALWAYS_HIDDEN):
                if _hideable(path, python):
                    linux.mount("tmpfs", path, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=4k,mode=0755")
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
        if iso.uid is not None:
            # RLIMIT_NPROC counts per uid and means nothing to root: set it only with a dedicated uid.
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes,) * 2)
            os.setgroups([])
            os.setgid(iso.uid)
            os.setuid(iso.uid)
        os.chdir(workdir)
        if iso.seccomp:
            linux.install_seccomp_filter()  # last: it also forbids the mount and setns calls above
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": workdir}
        os.execve(python, [python, "-I", "-S", "-B", "-c", HARNESS], env)

    def setup_cpu_ceiling(self) -> float:
        return float(self.setup.get("cpu_ceiling", self.limits.cpu))  # type: ignore[arg-type]

    # ------------------------------------------------------------ talk
    def send(self, message: dict[str, object]) -> None:
        data = marshal.dumps(message)
        try:
            os.write(self.requests_w, len(data).to_bytes(4, "big") + data)
        except (BrokenPipeError, OSError):
            pass  # the sandbox died; receive() reports it

    def receive(self, wall_seconds: float, seq: int | None) -> Frame:
        """The next reply (with this seq), within the wall time. Death is seen through the pidfd, not EOF:
        an escaped grandchild may hold the reply pipe open."""
        started = time.monotonic()
        cpu_before = self.cpu_seconds()
        deadline = started + wall_seconds
        while True:
            data, failure = self._read_frame(deadline)
            if failure or data is None or seq is None or data.get("seq") == seq:
                break
        wall = time.monotonic() - started
        return Frame(data, wall, max(self.cpu_seconds() - cpu_before, 0.0), failure)

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
        try:
            data = ast.literal_eval(buffer[4:].decode("utf-8", "replace"))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None, "garbled"
        return (data, "") if isinstance(data, dict) else (None, "garbled")

    def cpu_seconds(self) -> float:
        """CPU of the sandbox process and its reaped children, read by us: the sandbox cannot under-report."""
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            return 0.0
        return sum(int(x) for x in fields[11:15]) / CLOCK_TICKS

    # ------------------------------------------------------------ stop
    def close(self) -> None:
        """Kill every process of the submission, escaped ones included, and remove its files."""
        if not self.pid:
            return
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        if self.isolation.uid is not None:
            kill_all_of(self.isolation.uid)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        reap_orphans(keep=self.children_before)
        for fd in (self.requests_w, self.replies_r, self.pidfd):
            os.close(fd)
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
        self.pid = 0


def _hideable(path: str, python: str) -> bool:
    """A folder we may cover with an empty tmpfs: not a system folder, not one the interpreter lives in."""
    path = os.path.normpath(path)
    return os.path.isdir(path) and path not in NEVER_HIDDEN and not python.startswith(path + "/")


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
