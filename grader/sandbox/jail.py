"""The jail a sandbox's forked child enters before it becomes the harness: namespaces, a private /proc, /dev
and /tmp, folders hidden, a dedicated uid, Landlock, rlimits, seccomp, then exec. Order matters (see comments).

A fork server's child (forks.py) enters the same jail and runs the harness without the exec: the server
runs this file's code in the sandbox's interpreter, so at run time it imports only the standard library,
`linux` and `records` (the other names are for type checkers, or imported where only the grader runs)."""

from __future__ import annotations

import fcntl
import json
import os
import resource
import signal
from typing import TYPE_CHECKING

from grader.records import record
from grader.sandbox import linux

if TYPE_CHECKING:
    from grader.model import Limits
    from grader.sandbox.isolation import Isolation

# What a sandboxed interpreter may read when Landlock is on; everything else on disk is invisible.
SYSTEM_READ_ONLY = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc/ld.so.cache", "/etc/localtime",
                    "/dev/null", "/dev/urandom", "/dev/zero")
# With a mount namespace every top-level folder but these is covered by an empty tmpfs (the interpreter's
# own prefix excepted), whatever its permissions: a world-readable checkout anywhere is out of sight.
KEPT = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/proc", "/dev", "/sys", "/tmp")
ALSO_HIDDEN = ("/dev/shm", "/dev/mqueue")  # world-writable: nothing may be left there for later
DEVICES = ("null", "zero", "full", "random", "urandom")
PRIVATE_SHM = "/dev/shm"  # with a mount namespace: a tmpfs of the sandbox's own (see _private_dev)
MS_NOEXEC, MS_MOVE = 8, 8192


class _NotStarted(Exception):
    """The sandbox could not start; its message is the report's."""


@record
class Jail:
    """Everything the child needs to lock itself in; read after the fork, so nothing is sent."""

    isolation: Isolation
    limits: Limits
    python: str
    workdir: str  # made by the parent without a mount namespace; "" with one (made inside)
    private_paths: tuple[str, ...]
    cpu_ceiling: float
    nproc: int  # RLIMIT_NPROC
    sweep_uid: bool  # kill what a previous holder of the slot uid left running
    readable: tuple[str, ...] = ()  # folders outside the system ones it may read: the courses' environments
    # A fork server's child: already in the network namespace (the server is), and it runs the harness in
    # this process instead of exec'ing an interpreter.
    in_place: bool = False

    def run(self, requests_r: int, replies_w: int) -> None:  # pragma: no cover - runs in the forked child
        """Enter the jail and exec the harness; a failure is reported on the reply pipe. Never returns."""
        from grader.sandbox.wire import BOOTSTRAP

        try:
            env = self.enter(requests_r, replies_w)
            os.execve(self.python, [self.python, "-I", "-S", "-B", "-c", BOOTSTRAP], env)
        except BaseException as error:  # noqa: BLE001
            self.report_failure(error, replies_w)
        os._exit(127)

    def report_failure(self, error: BaseException, replies_w: int) -> None:  # pragma: no cover - in the child
        """Why the jail could not be entered, as the load's reply; then the process ends."""
        message = str(error) if isinstance(error, _NotStarted) else f"sandbox set-up failed: {error}"
        try:
            data = json.dumps({"sandbox_error": message}).encode()
            try:
                os.write(replies_w, len(data).to_bytes(4, "big") + data)
            except OSError:  # closed once it was moved to fd 4 (the exec itself failed)
                os.write(4, len(data).to_bytes(4, "big") + data)
        finally:
            os._exit(127)

    def enter(self, requests_r: int, replies_w: int) -> dict[str, str]:  # pragma: no cover - in the child
        """Every layer, in order, up to the exec: the environment the harness is to run with is returned."""
        iso, limits, python = self.isolation, self.limits, self.python
        os.setsid()
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # the sandbox dies with the grader
        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)  # no setuid program gives root back, whatever the layers
        linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)  # kept across exec: the harness reaps escaped helpers
        if iso.netns and not self.in_place:
            from grader.sandbox.isolation import netns_fd

            linux.setns(netns_fd(), linux.CLONE_NEWNET)
        workdir = self.workdir
        if iso.mountns:  # before dropping root: mounting needs it
            linux.unshare(linux.CLONE_NEWNS | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS)
            linux.mount("none", "/", None, linux.MS_REC | linux.MS_PRIVATE)
            files: list[str] = []
            for path in hidden_folders(python, self.private_paths, files, self.readable):
                linux.mount("tmpfs", path, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=4k,mode=0755")
            for path in files:
                linux.mount("/dev/null", path, None, linux.MS_BIND)
            _private_proc()
            _private_dev(max(limits.file_size, 1))
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
        _drop_privileges(iso)
        if self.in_place:
            # Changing uid made the process undumpable, which the exec would undo: its own /proc files
            # (environ, fd) stay the submission's to read, as in a sandbox that exec'd.
            linux.prctl(linux.PR_SET_DUMPABLE, 1)
        if iso.uid is not None:
            if self.sweep_uid:  # what a grader killed while it held this uid left running; before
                try:  # Landlock, whose signal scope would spare it (kill(-1) spares us)
                    os.kill(-1, signal.SIGKILL)
                except ProcessLookupError:  # nothing of the uid was left (always so in a new PID namespace)
                    pass
        if iso.landlock:
            prefix = os.path.dirname(os.path.dirname(python))
            read_only = [*SYSTEM_READ_ONLY, prefix] if prefix not in ("", "/") else list(SYSTEM_READ_ONLY)
            read_only += [p for p in self.readable if os.path.isdir(p)]  # none under a private /tmp
            linux.landlock_restrict(read_only, [workdir, *([PRIVATE_SHM] if iso.mountns else [])])
        cpu = int(max(self.cpu_ceiling, 1)) + 1
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
        return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": workdir}


def _drop_privileges(iso: Isolation) -> None:  # pragma: no cover - runs in the forked child
    """Become the dedicated uid with no capability left in any set, the bounding set included; refuse to
    go on as root (no dedicated uid could be had) or with a capability."""
    if os.geteuid() == 0:
        if iso.uid is None:
            why = iso.missing.get("uid", "no dedicated uid")
            raise _NotStarted(f"refusing to run the submission as root: no dedicated uid ({why})")
        linux.drop_bounding_set()  # needs CAP_SETPCAP, which the setuid below takes away
    elif iso.uid is None:
        try:  # a grader that is not root but holds capabilities (CAP_SETPCAP among them) drops them too
            linux.drop_bounding_set()
        except PermissionError:
            pass
    if iso.uid is not None:
        os.setgroups([])
        os.setresgid(iso.uid, iso.uid, iso.uid)
        os.setresuid(iso.uid, iso.uid, iso.uid)  # all three: a saved uid of 0 would let it become root again
    linux.clear_capabilities()  # the inheritable set survives setuid; the others are gone by now
    # (A teacher's own gid 0, as OpenShift gives, is theirs to share; a gid we chose is checked.)
    if 0 in os.getresuid() or (iso.uid is not None and 0 in os.getresgid()) or any(linux.capabilities()):
        raise _NotStarted("refusing to run the submission: it would keep root or a capability")


def _private_dev(shm_megabytes: int) -> None:
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
    # A /dev/shm of the sandbox's own (POSIX shared memory, multiprocessing's semaphores): fresh and
    # small, gone with the namespace, emptied between tests by the harness (setup's clear_also).
    linux.mount("tmpfs", "/tmp/shm", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV | MS_NOEXEC,
                f"size={shm_megabytes}m,mode=1777")
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


def hidden_folders(python: str, private: tuple[str, ...] = (), files: list[str] | None = None,
                   readable: tuple[str, ...] = ()) -> list[str]:
    """The folders to cover with an empty tmpfs: every top-level folder but the system ones, and along the
    interpreter's path (when it lives elsewhere, e.g. a venv in /home) and each `readable` folder's, every
    sibling of that path. The plain files met on the way (/root/.bash_history, /container_info.json) go
    into `files`, to cover one by one."""
    kept = [os.path.dirname(os.path.dirname(os.path.realpath(python))), *map(os.path.realpath, readable)]
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
            if path in kept:
                continue
            if any(prefix.startswith(path + "/") for prefix in kept):
                walk(path)
            else:
                found.append(path)

    walk("/")
    # Outer folders first, and none inside one already covered: once /x is covered, /x/y no longer exists.
    for path in sorted({os.path.realpath(p) for p in (*private, *ALSO_HIDDEN)}, key=len):
        if (os.path.isdir(path) and not any(path.startswith(f + "/") or path == f for f in found)
                and not any(prefix.startswith(path + "/") or path == prefix for prefix in kept)):
            found.append(path)
    return found
