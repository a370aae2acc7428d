"""A backend whose sandboxes are forked by a fork server (fork_server.py) instead of exec'ing an interpreter
each: a batch worker starts the sandbox's interpreter, the harness and the course environment's heavy
modules (numpy, pandas: ~0.2 s of CPU) once, and each submission pays only a fork and the jail. It serves
issue 28's batch target: a batch's wall time within 1.5 x the tests' own CPU / workers
(benchmarks/fork_server.py).

Each child gets every layer the exec'd sandbox gets (the same Jail, entered in the child), its own cgroup
(made and joined from here, as today), its own pipes, and a fresh copy of a server that never ran student
code. Only a layer set that makes that safe gets one (`refusal`): root with a dedicated uid, a mount
namespace (a private /tmp and /dev/shm per child) and a cgroup (which kills every process a child left,
wherever it went); elsewhere the batch uses today's backend and says why. A server that died is replaced
at the next start; a start that still finds none falls back to today's fork-and-exec for that sandbox."""

from __future__ import annotations

import marshal
import os
import signal
import socket
from dataclasses import fields
from pathlib import Path

from grader.cache import cache_dir
from grader.model import Limits
from grader.sandbox import linux, wire
from grader.sandbox.isolation import Isolation, child_python, netns_fd
from grader.sandbox.jail import Jail
from grader.sandbox.process import ProcessBackend, ProcessSession

MAX_FAILURES = 3  # servers started in a row that never forked (a broken interpreter): then none is tried
SWITCH = "GRADER_FORK_SERVER"  # "off": every batch worker execs a sandbox per submission, as `grader check`
# What a server may import before it forks (those a hand-in imports: workers/sandboxes.py): the heavy ones,
# by the package a hand-in names and the modules loaded for it. matplotlib's import writes a font cache:
# the server keeps it in the grader's cache folder (_font_cache), never where a sandbox could write it.
# pandas and matplotlib load numpy themselves: named first, a hand-in importing both shares their server.
PRELOADED = {"numpy": ("numpy",), "pandas": ("numpy", "pandas"),
             "matplotlib": ("numpy", "matplotlib", "matplotlib.pyplot")}
_HERE = Path(__file__).resolve().parent
_SOURCES = {"grader.sandbox.linux": _HERE / "linux.py", "grader.records": _HERE.parent / "records.py",
            "grader.sandbox.jail": _HERE / "jail.py"}
# The server's interpreter runs this; its code comes first on fd 3 (a SOCK_SEQPACKET socket).
SERVER_BOOTSTRAP = """\
import marshal, socket
def _serve():
    control = socket.socket(fileno=3)
    sources, config = marshal.loads(control.recv(1 << 24))
    space = {"__name__": "grader_fork_server"}
    exec(compile(sources["fork_server"], "<fork-server>", "exec"), space)
    space["main"](control, sources, config)
_serve()
"""


def refusal(isolation: Isolation) -> str:
    """Why sandboxes cannot be forked by a fork server under these layers ('' when they can)."""
    if os.environ.get(SWITCH, "").lower() in ("0", "off", "no"):
        return f"turned off by {SWITCH}"
    missing = [name for name, present in (("a dedicated uid (root)", isolation.uid is not None),
                                          ("a mount namespace", isolation.mountns),
                                          ("a cgroup", isolation.cgroup)) if not present]
    return f"needs {', '.join(missing)}" if missing else ""


class ForkServer:
    """One server process for one environment (None: the standard library only), started on first use and
    again after it died."""

    def __init__(self, isolation: Isolation, site_packages: str | None = None,
                 environ: dict[str, str] | None = None, preload: tuple[str, ...] = (),
                 base: ForkServer | None = None) -> None:
        self.isolation = isolation
        # A server of the same environment whose preload ours extends: ours is forked from it (only the
        # extra modules imported: no interpreter started, numpy not loaded again), else started anew.
        self.base = base if base is not None and preload[:len(base.preload)] == base.preload else None
        self.site_packages = site_packages
        self.environ = dict(environ or {})
        self.preload = preload  # imported before the first fork (of PRELOADED)
        self.pid = 0
        self.pidfd = -1
        self.control: socket.socket | None = None
        self.reaped_cpu = 0.0  # CPU of every child it reaped: the kernel counts it to the server, not to us
        self.starts = 0
        self.failures = 0  # starts in a row that never forked a child: past MAX_FAILURES, none is tried

    def alive(self) -> bool:
        if self.pid == 0:
            return False
        import select

        if select.select([self.pidfd], [], [], 0)[0]:  # it ended
            self._forget()
            return False
        return True

    def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        for end in (ours, theirs):
            end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
            end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        if self._spawned(ours, theirs):
            return
        netns = netns_fd() if self.isolation.netns else -1
        python = child_python()
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", **self.environ}
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the server's process, until the exec
            try:
                linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # it dies with the worker
                linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
                if netns >= 0:
                    linux.setns(netns, linux.CLONE_NEWNET)  # whatever the packages do at import: no network
                devnull = os.open("/dev/null", os.O_RDWR)
                os.dup2(devnull, 0)
                os.dup2(devnull, 1)
                os.dup2(theirs.fileno(), 3)
                os.closerange(4, 65536)  # stderr stays the worker's: a server that breaks says why there
                os.execve(python, [python, "-I", "-S", "-B", "-c", SERVER_BOOTSTRAP], env)
            finally:
                os._exit(127)
        theirs.close()
        self.pid, self.pidfd, self.control = pid, os.pidfd_open(pid), ours
        self.starts += 1
        sources = {name: path.read_text() for name, path in _SOURCES.items()}
        sources["fork_server"] = (_HERE / "fork_server.py").read_text()
        sources["harness"] = wire.HARNESS_BODY
        config = {"site_packages": self.site_packages, "environ": self.environ,
                  "preload": self.preload if self.site_packages else (), "font_cache": _font_cache(self.preload)}
        ours.sendall(marshal.dumps((sources, config)))

    def _spawned(self, ours: socket.socket, theirs: socket.socket) -> bool:
        """Started as a fork of the base server (see __init__), serving on `theirs`; False: none to be had."""
        base = self.base
        if base is None or base.failures >= MAX_FAILURES:
            return False
        if not base.alive():
            base.failures += 1
            base.start()
        extra = self.preload[len(base.preload):]
        try:
            assert base.control is not None
            socket.send_fds(base.control, [marshal.dumps({"op": "spawn", "preload": extra,
                                                          "font_cache": _font_cache(self.preload)})],
                            [theirs.fileno()])
            pid = base._answer().get("pid")
        except OSError:
            base._forget()
            return False
        if not (isinstance(pid, int) and pid > 0):
            return False
        base.failures = 0
        theirs.close()
        self.pid, self.pidfd, self.control = pid, os.pidfd_open(pid), ours
        self.starts += 1
        return True

    def fork(self, jail: Jail, requests_r: int, replies_w: int) -> int:
        """The pid of a new child in the jail, serving the harness on these pipe ends; OSError without one."""
        for attempt in (1, 2):  # a server found dead is replaced once
            if self.failures >= MAX_FAILURES:  # it cannot start here: every sandbox is exec'd instead
                raise OSError("the fork server does not start")
            if not self.alive():
                self.failures += 1
                self.start()
            try:
                assert self.control is not None
                socket.send_fds(self.control, [marshal.dumps({"op": "fork", "jail": plan(jail)})],
                                [requests_r, replies_w])
                pid = self._answer().get("pid")
            except OSError:
                self._forget()
                if attempt == 2:
                    raise
                continue
            if isinstance(pid, int) and pid > 0:
                self.failures = 0
                return pid
            raise OSError("the fork server could not fork")
        raise OSError("no fork server")

    def lineage(self) -> list[int]:
        """This server's pid and its base's (started for it, maybe in this very call): the worker's own."""
        return [self.pid, *(self.base.lineage() if self.base is not None else ())]

    def reap(self, pid: int) -> bool:
        """Reap an ended child (False: the server is gone, and the child is ours to reap now)."""
        if self.control is None:
            return False
        try:
            self.control.send(marshal.dumps({"op": "reap", "pid": pid}))
            cpu = self._answer().get("cpu")
        except OSError:
            self._forget()
            return False
        self.reaped_cpu += cpu if isinstance(cpu, float) else 0.0
        return True

    def _answer(self) -> dict[str, object]:
        assert self.control is not None
        data = self.control.recv(1 << 16)
        if not data:
            raise ConnectionError("the fork server closed its socket")
        answer = marshal.loads(data)
        return answer if isinstance(answer, dict) else {}

    def _forget(self) -> None:
        """Let go of a dead (or broken) server: killed, reaped, its socket closed. By its pidfd, never its
        pid: a server forked from a base is reaped by that base as soon as it ends, and its pid may then
        be another process's (ours even), which a kill or a wait by number would hit."""
        if self.pid:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except OSError:
                pass
            try:
                os.waitid(os.P_PIDFD, self.pidfd, os.WEXITED)
            except ChildProcessError:
                pass  # forked from a base server: that one reaps it
            os.close(self.pidfd)
        if self.control is not None:
            self.control.close()
        self.pid, self.pidfd, self.control = 0, -1, None

    def close(self) -> None:
        self._forget()


def _font_cache(preload: tuple[str, ...]) -> str | None:
    """Where a server that loads matplotlib keeps its font cache (MPLCONFIGDIR) from one start to the next:
    in the grader's own cache folder, which no sandbox sees; None: a folder of its own, removed once loaded."""
    if "matplotlib" not in preload:
        return None
    try:
        path = cache_dir() / "fork-server-matplotlib"
        path.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return str(path)


def plan(jail: Jail) -> dict[str, object]:
    """The jail as plain data for the server, which rebuilds it; the server is already in the namespace."""
    data = {f.name: getattr(jail, f.name) for f in fields(jail)}
    data["isolation"] = {f.name: getattr(jail.isolation, f.name) for f in fields(jail.isolation)}
    data["limits"] = {f.name: getattr(jail.limits, f.name) for f in fields(jail.limits)}
    data["in_place"] = True
    return data


class ForkServerBackend(ProcessBackend):
    """Today's sandboxes (ProcessBackend: same layers, limits, reports), forked by `server`."""

    def __init__(self, isolation: Isolation, server: ForkServer) -> None:
        super().__init__(isolation)
        self.server = server

    def _session(self, setup: dict[str, object], limits: Limits, private_paths: tuple[str, ...],
                 cpu_ceiling: float) -> ProcessSession:
        return ForkServerSession(setup, limits, self.isolation, private_paths, cpu_ceiling, self.server)


class ForkServerSession(ProcessSession):
    def __init__(self, setup: dict[str, object], limits: Limits, isolation: Isolation,
                 private_paths: tuple[str, ...], cpu_ceiling: float, server: ForkServer) -> None:
        super().__init__(setup, limits, isolation, private_paths, cpu_ceiling)
        self.server = server
        self.forked = False  # by the server (else by us, exec'd, as today)

    def _spawn(self, jail: Jail, requests_r: int, replies_w: int) -> int:
        try:
            pid = self.server.fork(jail, requests_r, replies_w)
        except OSError:
            return super()._spawn(jail, requests_r, replies_w)  # no server to be had: exec'd, as today
        os.close(requests_r)
        os.close(replies_w)
        self.children_before.update(self.server.lineage())  # no orphans of this sandbox: kept by the clean-up
        self.forked = True
        return pid

    def _wait_ended(self) -> None:
        if self.forked:
            import select

            select.select([self.pidfd], [], [])  # killed: it ends now (the server then reaps it at once)
            if self.server.reap(self.pid):
                return
            try:  # its server died and it was re-parented to us; by its pidfd: its pid may be free already
                os.waitid(os.P_PIDFD, self.pidfd, os.WEXITED)
            except ChildProcessError:
                pass
            return
        super()._wait_ended()  # exec'd by us
