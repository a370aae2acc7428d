"""Dask workers: the same jobs, each through `grade_job` as a task on a worker of a Dask distributed cluster
(Dask's public face only: `Client.scatter`, `Client.submit`, a future's result).

A job's packed exercise (its expected answers with it: kilobytes to megabytes) is sent to the workers once,
scattered by its content, and each task carries a reference to it: the tasks themselves carry the hand-in.

Workers must run one task at a time per process (`--nthreads 1`): a process holds a single sandbox uid.
Each worker keeps its sandboxes' fork servers for its life (a worker plugin, dask_plugin.py), so a task costs
what a local worker's job costs: a fork of a loaded interpreter, not a new one started per task."""

from __future__ import annotations

import logging
import re
import time
from dataclasses import replace
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.workers.job import Done, Graded, Job
from grader.workers.pool import RETRIES, Pool
from grader.workers.run import grade_job

# A feeding pass asks `waiting()` before each job it submits: the scheduler's count, a round trip, is asked
# again only after this many seconds; in between, this pool's own submissions are added to the last answer.
ASK_AGAIN = 0.02
ADDRESS = re.compile(r"^(?:(?:tcp|tls)://[^\s/:]+:\d+|local:\d+)$")


def check_address(address: str) -> str:
    """For argparse: tcp://HOST:PORT (tls:// too) or local:N."""
    if not ADDRESS.match(address) or address == "local:0":
        raise ValueError(address)
    return address


DASK_CONFIG = Path(__file__).with_name("dask.yaml")  # what Dask is told for grading (its comments say why)


def grading_config() -> dict[str, object]:
    """dask.yaml as dotted keys, for dask.config.set (which would replace a whole nested section)."""
    import yaml

    flat: dict[str, object] = {}

    def walk(prefix: str, node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(f"{prefix}.{key}" if prefix else str(key), value)
        else:
            flat[prefix] = node

    walk("", yaml.safe_load(DASK_CONFIG.read_text()))
    return flat


class DaskPool(Pool):
    def __init__(self, address: str) -> None:
        super().__init__()
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError as error:
            raise UsageError("--cluster needs Dask distributed: pip install '.[dask]' in the grader's checkout") from error
        self.address = address
        self.cluster: Any = None
        if address.startswith("local:"):
            count = int(address.split(":", 1)[1])
            # Its scheduler gives up on a task at the first worker that dies under it: the pool's retry
            # policy then decides, as for local workers. (A cluster of its own keeps its own setting.)
            with dask.config.set({**grading_config(), "distributed.scheduler.allowed-failures": RETRIES - 1}):
                self.cluster = LocalCluster(n_workers=count, threads_per_worker=1,
                                            processes=True, dashboard_address=None,
                                            silence_logs=logging.ERROR)  # type: ignore[no-untyped-call]
            self.client: Any = Client(self.cluster)  # type: ignore[no-untyped-call]
            # All of them, before counting them: on a loaded machine the last may not have joined yet (the
            # pool would keep fewer jobs in flight, and the exercise broadcast would miss it).
            self.client.wait_for_workers(count, timeout=120)
        else:
            try:
                self.client = Client(address, timeout="15s")  # type: ignore[no-untyped-call]
            except (OSError, TimeoutError) as error:
                raise UsageError(f"cannot reach the Dask scheduler at {address}: {error}") from error
        from grader.workers.dask_plugin import WorkerFork

        self.client.register_plugin(WorkerFork(), name=WorkerFork.name)  # on each worker, and on those joining later
        threads = self.client.nthreads()
        self.size = len(threads)
        self.crowded = sorted(w for w, n in threads.items() if n > 1)
        self.futures: dict[Any, Job] = {}  # in flight, in the order submitted
        self.ask_scheduler = True  # count the whole cluster's tasks (other servers' too), while it answers
        self.exercises: dict[bytes, Any] = {}  # a packed exercise -> its future on the workers (scattered once)
        self.asked = (float("-inf"), 0, 0)  # (when, the cluster's tasks then, this pool's submissions since)

    def describe(self) -> str:
        where = "a local Dask cluster" if self.cluster is not None else f"the Dask cluster at {self.address}"
        note = (f" ({len(self.crowded)} started with several threads: each grades one submission at a time "
                f"anyway; start workers with --nthreads 1)") if self.crowded else ""
        return f"{self.size} worker{'s' if self.size != 1 else ''} of {where}{note}"

    def submit(self, job: Job, priority: int = 0) -> None:
        future = self.client.submit(grade_packed, replace(job, packed_exercise=b""), self._scattered(job),
                                    pure=False, priority=priority)
        future.add_done_callback(lambda _: self.wake())  # on the Dask client's thread
        self.futures[future] = job
        when, tasks, since = self.asked
        self.asked = when, tasks, since + 1

    def waiting(self) -> int:
        """Tasks the whole cluster holds beyond one per worker, whoever submitted them: servers sharing a
        cluster each see the others' jobs, so none claims a job that would wait behind another's in the
        cluster (the shared database's queue, in its fair order, stays the one queue)."""
        held = len(self.futures)
        if self.ask_scheduler and time.monotonic() - self.asked[0] > ASK_AGAIN:
            try:  # a lambda travels by value: the scheduler needs no grader of the same version
                tasks, workers = self.client.run_on_scheduler(lambda dask_scheduler: (
                    sum(len(worker.processing) for worker in dask_scheduler.workers.values())
                    + len(dask_scheduler.queued) + len(dask_scheduler.unrunnable), len(dask_scheduler.workers)))
                self.asked = time.monotonic(), int(tasks), 0
                # Workers come and go (a deployment starts them beside the servers, not before): the size
                # the caller feeds is the cluster's now.
                self.size = int(workers)
            except Exception:  # noqa: BLE001 - a scheduler that runs no function: our own count from now on
                self.ask_scheduler = False
        if self.ask_scheduler:
            held = max(held, self.asked[1] + self.asked[2])
        return max(0, held - self.size)

    def alive(self) -> int:
        """The workers the scheduler knows now (0 when the scheduler is out of reach)."""
        try:
            return len(self.client.nthreads())
        except Exception:  # noqa: BLE001 - any failure to reach the scheduler means: none ready
            return 0

    def busy(self) -> bool:
        return bool(self.futures)

    def wait(self, timeout: float | None = None) -> list[Done]:
        done = self._collect()
        if not done:
            if self._wake_read in wait([self._wake_read], timeout):
                self._woken()
            done = self._collect()
        return done

    def _scattered(self, job: Job) -> Any:
        """The packed exercise on the workers: sent to every one at its first job (by content: a changed
        exercise, after a regrade, is another one), then named by reference. A worker that joins later fetches
        it from a peer when a task needs it."""
        packed = job.packed_exercise
        future = self.exercises.get(packed)
        if future is None or future.status != "finished":  # lost with every worker that held it: again
            future = self.client.scatter(packed, broadcast=True, hash=True)
            self.exercises[packed] = future
        return future

    def _collect(self) -> list[Done]:
        done: list[Done] = []
        for future in [f for f in self.futures if f.done()]:
            job = self.futures.pop(future)
            try:
                graded: Graded = future.result()
            except Exception as error:  # noqa: BLE001 - e.g. KilledWorker: the retry policy decides
                lost = self._lost(job, f"the Dask task failed: {type(error).__name__}: {error}")
                if lost is not None:
                    done.append(lost)
            else:
                done.append(Done(job, graded))
            future.release()
        return done

    def _again(self, job: Job) -> None:
        self.submit(job, priority=1)

    def stop(self) -> list[Job]:
        # Dask does not say which tasks a worker began: none comes back (a restart's recovery has them).
        self.futures.clear()
        self.exercises.clear()
        if self.client is not None:
            self.client.close()
            if self.cluster is not None:
                self.cluster.close()
            self.client = None
        return []


def grade_packed(job: Job, packed_exercise: bytes) -> Graded:
    """A Dask task: the job with its exercise as the worker holds it (Dask passes the scattered bytes),
    graded on the worker's fork servers (none where the worker has no plugin: a sandbox started anew)."""
    from distributed import get_worker

    from grader.workers.dask_plugin import WorkerFork

    plugin = get_worker().plugins.get(WorkerFork.name)
    sandboxes = plugin.sandboxes if isinstance(plugin, WorkerFork) else None
    return grade_job(replace(job, packed_exercise=packed_exercise), sandboxes)

