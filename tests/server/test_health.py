"""/healthz and /readyz: what a container's health check and a proxy ask, answered to anyone, saying
nothing of the course; readiness false, with what is missing, when no worker can grade."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.server.conftest import Served

CLUSTER = Path(__file__).parents[1] / "batch" / "dask_cluster.py"


def test_live_and_ready_to_anyone_with_local_workers(served: Served) -> None:
    served.start("--workers", "1")
    live, ready = served.call("GET", "/healthz"), served.call("GET", "/readyz")
    assert (live.status, live.body) == (200, {"status": "ok"})
    assert (ready.status, ready.body) == (200, {"status": "ready", "database": "ok", "workers": 1})
    assert ready.headers.get("cache-control") == "no-store"
    for hostile in ("/readyz?x=%00", "/healthz/../api/gradebook", "/readyz/", "/healthz?" + "a" * 5000):
        answer = served.call("GET", hostile)
        assert answer.status in (200, 404, 503, 414) and "Traceback" not in str(answer.body)


def test_not_ready_once_the_dask_cluster_is_gone_and_still_alive(served: Served) -> None:
    cluster = subprocess.Popen([sys.executable, str(CLUSTER), "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    try:
        assert cluster.stdout is not None
        served.start("--cluster", cluster.stdout.readline().strip())
        ready = served.call("GET", "/readyz")
        assert (ready.status, ready.body) == (200, {"status": "ready", "database": "ok", "workers": 1})
    finally:
        assert cluster.stdin is not None
        cluster.stdin.close()  # the scheduler and its worker shut down
        try:
            cluster.wait(timeout=60)
        finally:
            cluster.kill()
    ready = served.call("GET", "/readyz")
    assert (ready.status, ready.body) == (503, {"status": "not ready", "database": "ok", "workers": 0})
    assert served.call("GET", "/healthz").status == 200
