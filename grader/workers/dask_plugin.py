"""A Dask worker plugin: the worker's sandboxes kept for its life, as a local worker keeps them, so a task
pays a fork of a loaded interpreter (the fork servers, sandbox/forks.py), not an interpreter started anew."""

from __future__ import annotations

from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from grader.workers.sandboxes import WorkerSandboxes


class WorkerFork(WorkerPlugin):
    name = "grader-sandboxes"
    # Several servers (or batches) share a cluster: a second registration keeps the worker's running servers.
    idempotent = True

    def __init__(self) -> None:
        self.sandboxes: WorkerSandboxes | None = None

    def setup(self, worker: Any) -> None:
        self.sandboxes = WorkerSandboxes()

    def teardown(self, worker: Any) -> None:
        if self.sandboxes is not None:
            try:
                self.sandboxes.close()
            except OSError:  # a worker going away may have closed its descriptors first: the servers die with it
                pass
            self.sandboxes = None

    def __getstate__(self) -> dict[str, Any]:  # sent to a worker as a recipe, never with live servers
        return {"sandboxes": None}
