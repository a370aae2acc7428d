"""/healthz and /readyz: what a container's health check and a proxy ask, answered to anyone, saying
nothing of the course; readiness false, with what is missing, when no worker can grade."""

from __future__ import annotations

import os
import signal

from tests.server.conftest import Served


def test_live_and_ready_to_anyone_and_not_ready_once_its_workers_are_gone(served: Served) -> None:
    served.start("--workers", "1")
    live, ready = served.call("GET", "/healthz"), served.call("GET", "/readyz")
    assert (live.status, live.body) == (200, {"status": "ok"})
    assert (ready.status, ready.body) == (200, {"status": "ready", "database": "ok", "workers": 1})
    assert ready.headers.get("cache-control") == "no-store"
    # A worker killed: readiness says so until the pool replaces it (at its next job); liveness stays.
    assert served.process is not None
    children = [int(pid) for pid in open(f"/proc/{served.process.pid}/task/{served.process.pid}/children").read().split()]
    for pid in children:
        os.kill(pid, signal.SIGKILL)
    for _ in range(200):
        ready = served.call("GET", "/readyz")
        if ready.status == 503:
            break
    assert (ready.status, ready.body) == (503, {"status": "not ready", "database": "ok", "workers": 0})
    assert served.call("GET", "/healthz").status == 200
    for hostile in ("/readyz?x=%00", "/healthz/../api/gradebook", "/readyz/"):
        assert served.call("GET", hostile).status in (200, 404, 503)
