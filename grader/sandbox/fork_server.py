"""Runs inside the sandbox's interpreter (python -I -S -B, started by forks.SERVER_BOOTSTRAP) as root, in the
sandbox's network namespace: a batch worker's fork server. Imports nothing from grader: its code, the jail's
(linux.py, records.py, jail.py) and the harness arrive as source on the control socket (fd 3).

It loads them and the course environment's heavy modules once, then, for each submission, forks a child
that enters the jail exactly as a sandbox that exec's does (jail.Jail.enter: its own session, mount
namespace, /proc, /dev, /dev/shm and /tmp, the slot uid, Landlock, rlimits, seccomp; the grader moves it
into its own cgroup) and runs the harness's main() in place. The server itself never runs student code and
is never sent any: the submission, its tests and their answers go over the child's own pipes, which the
server hands on unread; it only ever holds the jail's plan. So every child starts from the same state, and
nothing of one submission (files, processes, modules, /dev/shm) reaches the next.

Requests (marshal, one per SOCK_SEQPACKET message): {"op": "fork", "jail": plan} with the child's request
and reply pipe ends attached (SCM_RIGHTS), answered {"pid": pid}; {"op": "reap", "pid": pid}, answered
{"cpu": seconds} once that child has ended (it is reaped only then: its pid cannot be reused before the
grader is done with it). {"op": "spawn", "preload": [...], "font_cache": ...} with one end of a new control
socket attached: a copy of this server (which never runs student code: its children are what runs it), that
imports those modules as well and then serves on that socket, answered {"pid": pid}: a server for hand-ins
that import pandas starts from the one for numpy instead of from nothing. It is reaped here, at the next
request after it ended (the grader holds its pidfd, not its pid). EOF: the server exits."""

import marshal
import os
import socket
import sys
import types


def install(name, source):
    """A module made from its source and importable by its grader name (its parents are empty packages)."""
    parent = name.rpartition(".")[0]
    if parent and parent not in sys.modules:
        install_package(parent)
    module = types.ModuleType(name)
    module.__file__ = "<%s>" % name
    sys.modules[name] = module
    exec(compile(source, module.__file__, "exec", dont_inherit=True), module.__dict__)
    if parent:
        setattr(sys.modules[parent], name.rpartition(".")[2], module)
    return module


def install_package(name):
    parent = name.rpartition(".")[0]
    if parent and parent not in sys.modules:
        install_package(parent)
    package = types.ModuleType(name)
    package.__path__ = []
    sys.modules[name] = package
    if parent:
        setattr(sys.modules[parent], name.rpartition(".")[2], package)


def main(control, sources, config):
    os.chdir("/")
    for name in ("grader.sandbox.linux", "grader.records", "grader.sandbox.jail"):
        install(name, sources[name])
    jail_module = sys.modules["grader.sandbox.jail"]
    harness = sys.modules["__main__"].__dict__  # where the harness runs when it is exec'd, as today
    exec(compile(sources["harness"], "<harness>", "exec", dont_inherit=True), harness)
    site = config["site_packages"]
    if site:
        os.environ.update(config["environ"])  # one BLAS thread: read by the libraries as they load
        sys.path.append(site)
        preload(config["preload"], config.get("font_cache"))
    ours = [name for name in sys.modules if name == "grader" or name.startswith("grader.")]
    freeze()
    serve(control, jail_module, harness, site, ours)


def freeze():
    """What is loaded now is never collected (it lives as long as the server): frozen, the children's
    collections neither walk it nor write its pages, which a fork would then copy for every test."""
    import gc

    gc.collect()
    gc.freeze()


def serve(control, jail_module, harness, site, ours):
    spawned = set()  # the servers forked from this one: reaped here once they end
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 1 << 20, 2)
        except OSError:
            break
        if not message:
            break
        reap_spawned(spawned)
        request = marshal.loads(message)
        if request["op"] == "fork" and len(fds) == 2:
            pid = fork_child(control, jail_module, request["jail"], fds, harness, site, ours)
            for fd in fds:
                os.close(fd)
            control.send(marshal.dumps({"pid": pid}))
        elif request["op"] == "spawn" and len(fds) == 1:
            pid = spawn(control, fds[0], request, (jail_module, harness, site, ours))
            os.close(fds[0])
            if pid:
                spawned.add(pid)
            control.send(marshal.dumps({"pid": pid}))
        elif request["op"] == "reap":
            for fd in fds:
                os.close(fd)
            try:
                _, _, usage = os.wait4(request["pid"], 0)
                cpu = usage.ru_utime + usage.ru_stime
            except ChildProcessError:
                cpu = 0.0
            control.send(marshal.dumps({"cpu": cpu}))
        else:
            for fd in fds:
                os.close(fd)
            control.send(marshal.dumps({"error": "unknown request"}))


def reap_spawned(spawned):
    for pid in list(spawned):
        try:
            if not os.waitpid(pid, os.WNOHANG)[0]:
                continue
        except ChildProcessError:
            pass
        spawned.discard(pid)


def spawn(control, fd, request, state):
    """Fork a server that loads `request["preload"]` besides what this one has, serving on `fd`; its pid."""
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        return 0
    if pid:
        return pid
    try:  # pragma: no cover - the new server
        linux = sys.modules["grader.sandbox.linux"]
        linux.prctl(linux.PR_SET_PDEATHSIG, 9)  # it dies with this server, which dies with the worker
        if os.getppid() != parent:  # this server died before the line above: none would kill it now
            os._exit(0)
        control.close()  # this server's socket is this server's alone
        new = socket.socket(fileno=os.dup(fd))
        os.close(fd)
        if state[2]:
            preload(request["preload"], request.get("font_cache"))
        freeze()
        serve(new, *state)
    finally:
        os._exit(0)


def preload(modules, font_cache=None):
    """Import the heavy modules the submissions will (numpy, pandas, matplotlib.pyplot) before any fork.
    matplotlib reads (and the first time writes) its font cache at import: in `font_cache`, a folder of
    the grader's that no sandbox sees, kept for the next server; else in a folder of the server's own,
    removed once loaded. The children inherit the fonts found; no MPLCONFIGDIR of theirs is written."""
    config_dir = temporary = None
    if any(module.partition(".")[0] == "matplotlib" for module in modules):
        if font_cache is None:
            import tempfile

            font_cache = temporary = tempfile.mkdtemp(prefix="grader-fork-server-mpl-")
        config_dir = font_cache
        os.environ["MPLCONFIGDIR"] = config_dir
    try:
        for module in modules:
            try:
                __import__(module)
            except Exception:  # noqa: BLE001 - not in this environment: the submission imports it, or not
                pass
    finally:
        if config_dir is not None:
            del os.environ["MPLCONFIGDIR"]
        if temporary is not None:
            import shutil

            shutil.rmtree(temporary, ignore_errors=True)


def fork_child(control, jail_module, plan, fds, harness, site, ours):
    try:
        pid = os.fork()
    except OSError:
        return 0
    if pid:
        return pid
    try:  # pragma: no cover - the child
        control.detach()  # its number becomes the request pipe's: the socket object must never close it
        requests_r, replies_w = fds
        jail = jail_module.Jail(
            isolation=types.SimpleNamespace(**plan["isolation"]),
            limits=types.SimpleNamespace(**plan["limits"]),
            **{key: value for key, value in plan.items() if key not in ("isolation", "limits")},
        )
        try:
            env = jail.enter(requests_r, replies_w)
        except BaseException as error:  # noqa: BLE001
            jail.report_failure(error, replies_w)
        become_fresh(env, site, ours)
        try:
            harness["main"]()
        except BaseException:  # noqa: BLE001 - as an uncaught error ends an exec'd harness: it died
            os._exit(1)
        os._exit(0)
    finally:
        os._exit(127)


def become_fresh(env, site, ours):
    """What the exec would have reset: the environment, the path, modules that are the grader's; and the
    one random state that a fresh import would have seeded (Python's own `random` reseeds at fork)."""
    os.environ.clear()
    os.environ.update(env)
    for name in ours:
        sys.modules.pop(name, None)
    if site and site in sys.path:
        sys.path.remove(site)  # put back by the harness, where a sandbox that exec'd has it
    legacy = sys.modules.get("numpy.random")
    if legacy is not None:
        legacy.seed()  # numpy's global RandomState: from the OS's entropy, as at import
