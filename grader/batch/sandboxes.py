"""The sandboxes of a local batch worker: forked by a fork server per course environment (sandbox/forks.py)
where the layers in force allow it, else started as `grader check` starts them. One seam: the Backend that
`grade()` is handed."""

from __future__ import annotations

from grader.environment import environment_of_exercise
from grader.model import Exercise
from grader.sandbox import Backend
from grader.sandbox.forks import ForkServer, ForkServerBackend, refusal
from grader.sandbox.isolation import detect


class WorkerSandboxes:
    def __init__(self) -> None:
        self.isolation = detect()
        self.refused = refusal(self.isolation)  # why there is no fork server here ('' when there is)
        self.servers: dict[tuple[str | None, tuple[tuple[str, str], ...]], ForkServer] = {}

    def backend(self, exercise: Exercise) -> Backend | None:
        """The backend for a submission of `exercise`; None: the default one (no fork server here)."""
        if self.refused:
            return None
        environment = environment_of_exercise(exercise.path)
        site, environ = None, {}
        if environment is not None and environment.built:  # not built: the check says so, as today
            setup = environment.sandbox_setup()
            site, environ = str(setup["site_packages"]), dict(setup["environ"])  # type: ignore[call-overload]
        key = (site, tuple(sorted(environ.items())))
        if key not in self.servers:
            self.servers[key] = ForkServer(self.isolation, site, environ)
        return ForkServerBackend(self.isolation, self.servers[key])

    def cpu_seconds(self) -> float:
        """CPU of the sandboxes the servers reaped (the kernel counts it to them, not to this process)."""
        return sum(server.reaped_cpu for server in self.servers.values())

    def close(self) -> None:
        for server in self.servers.values():
            server.close()


def describe() -> str:
    """How a local batch's workers start their sandboxes, for the batch's description."""
    why = refusal(detect())
    return "each with a fork server" if not why else f"a sandbox started anew per submission (no fork server: {why})"
