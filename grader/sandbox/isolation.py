"""Which isolation layers work on this machine, detected once per process, and the resources they need."""

from __future__ import annotations

import errno
import fcntl
import functools
import json
import os
import signal
import stat
import sys
from dataclasses import field
from pathlib import Path

from grader.cache import write_atomically
from grader.records import record
from grader.sandbox import groups, linux

LAYERS = ("uid", "seccomp", "netns", "mountns", "landlock", "cgroup")
OPTIONAL = ("seccomp", "netns", "mountns", "landlock", "cgroup")  # named in the report when in force
FIRST_SLOT_UID = 61001
SLOT_COUNT = 2000
PROBE_VERSION = "2"  # a change to what the probe tries is a new cache entry (2: netns by unshare)


@record
class Isolation:
    """The layers in force; `missing` says why each absent layer is absent."""

    uid: int | None = None  # the dedicated uid the submission runs as (root only)
    seccomp: bool = False
    netns: bool = False
    mountns: bool = False
    landlock: bool = False
    cgroup: bool = False
    missing: dict[str, str] = field(default_factory=dict)

    @property
    def signals_confined(self) -> bool:
        """The sandbox can signal only its own processes: a dedicated uid, or Landlock's signal scope."""
        return self.uid is not None or (self.landlock and linux.landlock_scopes())

    def describe(self) -> str:
        layers = [f"uid {self.uid}"] if self.uid is not None else []
        layers += [name for name in OPTIONAL if getattr(self, name)]
        if self.uid is None:
            why = "not root" if self.missing.get("uid") == "needs root" else "no dedicated uid"
            return f"rlimits only: {why}" + (f" (+ {', '.join(layers)})" if layers else "")
        return "isolation: " + ", ".join(layers)


def child_python() -> str:
    """An interpreter the sandbox uid can execute: GRADER_PYTHON, ours if every uid can reach it, else the
    system's."""
    return os.environ.get("GRADER_PYTHON") or _default_child_python()


@functools.cache  # a walk of every folder above the interpreter: once per process is enough
def _default_child_python() -> str:
    ours = os.path.realpath(sys.executable)
    if os.geteuid() != 0 or _world_executable(ours):
        return ours
    for candidate in (f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}", "/usr/bin/python3"):
        if os.path.exists(candidate) and _world_executable(os.path.realpath(candidate)):
            return os.path.realpath(candidate)
    return ours


def _world_executable(path: str) -> bool:
    parts = Path(path).parents
    return all(os.stat(p).st_mode & stat.S_IXOTH for p in parts) and bool(os.stat(path).st_mode & stat.S_IXOTH)


# ---------------------------------------------------------------- the empty network namespace
_netns_holder: tuple[int, int] | None = None  # (pid, fd of its namespace)
_netns_starting: tuple[int, int, int] | None = None  # (our pid, its pid, read end of its ready pipe)


def start_netns_holder() -> None:
    """Fork the namespace's holder now and wait for it at first use (netns_fd): the kernel takes a few ms to
    make a network namespace, spent on the other core while the caller goes on. Idempotent."""
    global _netns_starting
    if _netns_holder is not None or _started_here() is not None:
        return
    ready_r, ready_w = os.pipe()
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        os.close(ready_r)
        os.close(ready_w)
        raise
    if pid == 0:
        try:
            linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:  # the grader died before the line above: nothing to hold it for
                os._exit(1)
            os.closerange(3, ready_w)  # none of the grader's files (the uid slot's lock) stays open in here
            os.closerange(ready_w + 1, 65536)
            linux.unshare(linux.CLONE_NEWNET)
            os.write(ready_w, b"1")
            while True:
                signal.pause()
        finally:
            os._exit(1)
    os.close(ready_w)
    _netns_starting = (os.getpid(), pid, ready_r)


def _started_here() -> tuple[int, int] | None:
    """(the holder's pid, its ready pipe) when this process started one; a fork's copy of the state is not."""
    if _netns_starting is None or _netns_starting[0] != os.getpid():
        return None
    return _netns_starting[1:]


def netns_fd() -> int:
    """One empty network namespace per grader process, kept alive by a tiny holder that dies with us."""
    global _netns_holder, _netns_starting
    if _netns_holder is None:
        start_netns_holder()  # unless this process started one already
        pid, ready_r = _started_here()  # type: ignore[misc]
        _netns_starting = None
        ok = os.read(ready_r, 1) == b"1"
        os.close(ready_r)
        if not ok:
            os.waitpid(pid, 0)
            raise OSError(errno.EPERM, "cannot make a network namespace")
        _netns_holder = (pid, os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC))
    return _netns_holder[1]


def helper_pids() -> set[int]:
    if _netns_holder is not None:
        return {_netns_holder[0]}
    starting = _started_here()
    return {starting[0]} if starting else set()


# ---------------------------------------------------------------- dedicated uids
_slot: tuple[int, object] | None = None  # (uid, the socket whose name holds it)
_slot_swept = False  # the first sandbox of this process has killed what a previous holder left behind


def state_dir() -> Path:
    """Where the probe's answers are kept (root only); OSError where nothing is writable (a read-only /run
    and /tmp, as in many containers): the probe then runs at every start, and nothing else needs it."""
    path = Path("/run/grader-slots") if os.access("/run", os.W_OK) else Path("/tmp/grader-slots")
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def slot_uid() -> int:
    """A uid no other running grader uses, held for the life of this process by an abstract UNIX socket
    named after it (the kernel frees the name when we die; no writable folder is needed) and, where the
    state folder can be written, by a lock file there too: a grader of an older version locks only that."""
    global _slot
    if _slot is None:
        # The C module: `socket` wraps it with selectors, array and enums, a few ms of every check as root,
        # for a socket that is only ever bound.
        import _socket

        try:
            lock_dir: Path | None = state_dir()
        except OSError:
            lock_dir = None  # a read-only /run and /tmp: the socket alone holds the uid
        start = FIRST_SLOT_UID + (os.getpid() % SLOT_COUNT)
        for offset in range(SLOT_COUNT):
            uid = FIRST_SLOT_UID + (start - FIRST_SLOT_UID + offset) % SLOT_COUNT
            holder = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM | _socket.SOCK_CLOEXEC)
            try:
                holder.bind(f"\0grader-slot-{uid}".encode())  # bound, never listening: nobody connects
            except OSError:
                holder.close()
                continue
            lock = _lock_file(lock_dir, uid) if lock_dir is not None else -1
            if lock == -2:
                holder.close()
                continue
            _slot = (uid, (holder, lock))
            break
        else:
            raise OSError(errno.EAGAIN, "every sandbox uid is in use")
    return _slot[0]


def _lock_file(folder: Path, uid: int) -> int:
    """The uid's lock file, locked: its fd; -2 when another grader holds it; -1 when it cannot be made."""
    try:
        fd = os.open(folder / f"{uid}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    except OSError:
        return -1
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return -2
    return fd


def first_sandbox_of_process() -> bool:
    """True once: the sandbox that starts first kills, as the slot uid, whatever a grader killed while
    holding this uid left running (no other sandbox of ours is alive yet, so none is hit)."""
    global _slot_swept
    first, _slot_swept = not _slot_swept, True
    return first


# ---------------------------------------------------------------- required layers
def required_layers() -> list[str]:
    """The layers a course requires (GRADER_REQUIRE_LAYERS=uid,seccomp): without them grading refuses."""
    wanted = os.environ.get("GRADER_REQUIRE_LAYERS", "")
    return [name.strip() for name in wanted.split(",") if name.strip()]


def unmet(isolation: Isolation) -> dict[str, str]:
    """{required layer: why it is not in force here}."""
    found = {}
    for name in required_layers():
        if name not in LAYERS:
            found[name] = f"no such layer (the layers: {', '.join(LAYERS)})"
        elif not (isolation.uid is not None if name == "uid" else getattr(isolation, name)):
            found[name] = isolation.missing.get(name, "not detected")
    return found


def refusal(isolation: Isolation) -> str:
    """Why grading must not start under these layers ('' when it may)."""
    missing = unmet(isolation)
    if not missing:
        return ""
    why = "; ".join(f"{name}: {reason}" for name, reason in missing.items())
    return (f"refusing to grade: GRADER_REQUIRE_LAYERS asks for {', '.join(required_layers())}, "
            f"missing here: {why}")


# ---------------------------------------------------------------- detection
_detected: Isolation | None = None


def detect() -> Isolation:
    """Try every layer once in a throwaway child; cached for the life of the process."""
    global _detected
    if _detected is None:
        _detected = _probe(disabled=_disabled_by_environment())
    return _detected


def _disabled_by_environment() -> set[str]:
    # GRADER_LAYERS=none turns every layer off (for benchmarks of the bare path); a list keeps only those.
    wanted = os.environ.get("GRADER_LAYERS")
    if wanted is None:
        return set()
    keep = {name.strip() for name in wanted.split(",")} - {"none", ""}
    return set(LAYERS) - keep


def _probe(disabled: set[str]) -> Isolation:
    root = os.geteuid() == 0
    if root:  # a submission never runs as root: with root the dedicated uid is not a layer one can turn off
        disabled = disabled - {"uid"}
    missing: dict[str, str] = {name: "turned off by GRADER_LAYERS" for name in disabled}
    if not root:
        for name in ("uid", "netns", "mountns", "cgroup"):
            missing.setdefault(name, "needs root")
    if not linux.seccomp_supported():
        missing.setdefault("seccomp", "only built for x86_64")
    if linux.landlock_abi() < 1:
        missing.setdefault("landlock", "the kernel has no Landlock")
    to_try = [name for name in ("mountns", "netns", "landlock", "seccomp") if name not in missing]
    probe_cgroup = "cgroup" not in missing
    missing.update(_cached_probe(to_try, probe_cgroup))
    if probe_cgroup and "cgroup" not in missing:
        groups.remove_stale()
    uid = None
    if "uid" not in missing:
        try:
            uid = slot_uid()
        except OSError as error:
            missing["uid"] = error.strerror or str(error)
    return Isolation(
        uid=uid,
        seccomp="seccomp" not in missing,
        netns="netns" not in missing,
        mountns="mountns" not in missing,
        landlock="landlock" not in missing,
        cgroup="cgroup" not in missing,
        missing=missing,
    )


def _cached_probe(layers: list[str], probe_cgroup: bool) -> dict[str, str]:
    """{layer: why it fails} for the layers tried in a child (and the cgroup), kept per boot and kernel: a
    probe costs ~10 ms at every `grader check`, and what the kernel allows does not change until a reboot.
    A stale answer is safe either way: a layer that stops working fails the sandbox's start (a grader error,
    never a weaker sandbox), and one that starts working stays off and named missing until the next boot."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as file:
            boot = file.read().strip()
        kernel = " ".join(os.uname()[2:4])
        name = "-".join([*layers, *(["cgroup"] if probe_cgroup else [])]) or "none"
        where = state_dir() / f"probe-{name}.json" if os.geteuid() == 0 else None
    except OSError:
        boot, kernel, where = "", "", None
    wanted = {"version": PROBE_VERSION, "boot": boot, "kernel": kernel, "layers": layers, "cgroup": probe_cgroup}
    if where is not None:
        try:
            stored = json.loads(where.read_text())
            if {key: stored.get(key) for key in wanted} == wanted:
                return dict(stored["missing"])
        except (OSError, ValueError, TypeError, KeyError):
            pass
    found = _try_in_child(layers)
    reason = groups.unavailable() if probe_cgroup else ""
    if reason:
        found["cgroup"] = reason
    if where is not None:
        try:
            write_atomically(where, json.dumps({**wanted, "missing": found}).encode())
        except OSError:
            pass  # a read-only /run or /tmp: probed again next time
    return found


def _try_in_child(layers: list[str]) -> dict[str, str]:
    """Apply the layers in a forked child, in the sandbox's order; return {layer: why it failed}."""
    if not layers:
        return {}
    import socket  # here, not in the child: after the Landlock probe it may read nothing outside /usr

    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        failures = []
        for name in layers:
            try:
                if name == "mountns":
                    linux.unshare(linux.CLONE_NEWNS)
                    linux.mount("none", "/", None, linux.MS_REC | linux.MS_PRIVATE)
                    linux.mount("tmpfs", "/tmp", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=1m")
                elif name == "netns":  # as the holder does; a sandbox then joins the holder's namespace
                    linux.unshare(linux.CLONE_NEWNET)
                elif name == "landlock":
                    linux.landlock_restrict(["/usr"], [])
                elif name == "seccomp":
                    linux.install_seccomp_filter()
                    try:
                        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
                        raise OSError(errno.EINVAL, "the filter let an INET socket through")
                    except PermissionError:
                        pass
            except OSError as error:
                failures.append(f"{name}\t{error.strerror or error}")
        os.write(write_fd, "\n".join(failures).encode())
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        text = pipe.read().decode()
    os.waitpid(pid, 0)
    return dict(line.split("\t", 1) for line in text.splitlines() if "\t" in line)
