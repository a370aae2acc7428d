"""The sandboxes of a local worker: forked by a fork server per course environment (sandbox/forks.py)
where the layers in force allow it, else started as `grader check` starts them. One seam: the Backend that
`grade()` is handed."""

from __future__ import annotations

import ast

from grader.environment import environment_of_exercise
from grader.handins.base import Handin
from grader.model import Exercise
from grader.sandbox import Backend
from grader.sandbox.forks import PRELOADED, ForkServer, ForkServerBackend, refusal
from grader.sandbox.isolation import detect


class WorkerSandboxes:
    def __init__(self) -> None:
        self.isolation = detect()
        self.refused = refusal(self.isolation)  # why there is no fork server here ('' when there is)
        self.servers: dict[tuple[str | None, tuple[tuple[str, str], ...], tuple[str, ...]], ForkServer] = {}

    def backend(self, exercise: Exercise, handin: Handin) -> Backend | None:
        """The backend for this hand-in of `exercise`; None: the default one (no fork server here)."""
        if self.refused:
            return None
        environment = environment_of_exercise(exercise.path)
        site, environ, preload = None, {}, ()
        if environment is not None and environment.built:  # not built: the check says so, as today
            setup = environment.sandbox_setup()
            site, environ = str(setup["site_packages"]), dict(setup["environ"])  # type: ignore[call-overload]
            preload = preloaded_for(handin)
        return ForkServerBackend(self.isolation, self._server(site, environ, preload))

    def _server(self, site: str | None, environ: dict[str, str], preload: tuple[str, ...]) -> ForkServer:
        """The server for this environment and preload; one that loads more than numpy is forked from the
        environment's numpy server (started for it if need be), which saves a start of the interpreter
        and of numpy per server."""
        key = (site, tuple(sorted(environ.items())), preload)
        if key not in self.servers:
            base = self._server(site, environ, preload[:1]) if len(preload) > 1 else None
            self.servers[key] = ForkServer(self.isolation, site, environ, preload, base)
        return self.servers[key]

    def cpu_seconds(self) -> float:
        """CPU of the sandboxes the servers reaped (the kernel counts it to them, not to this process)."""
        return sum(server.reaped_cpu for server in self.servers.values())

    def close(self) -> None:
        for server in self.servers.values():
            server.close()


def describe() -> str:
    """How local workers start their sandboxes, for the pool's description."""
    why = refusal(detect())
    return "each with a fork server" if not why else f"a sandbox started anew per submission (no fork server: {why})"


def preloaded_for(handin: Handin) -> tuple[str, ...]:
    """The heavy modules its server loads ahead: those of PRELOADED the hand-in imports. Not all of them
    for everyone: every module loaded makes each test's fork dearer (pandas adds ~3 ms per test to a
    submission that only uses numpy), so a hand-in gets the server that loads what it imports."""
    names: set[str] = set()
    for source in (handin.source, *(module.source for module in handin.modules)):
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue  # refused before it runs, or loaded without help
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.partition(".")[0])
    wanted = [module for name, modules in PRELOADED.items() if name in names for module in modules]
    return tuple(dict.fromkeys(wanted))  # each once, in order
