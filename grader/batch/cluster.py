"""The Dask runner: the same jobs, each through `grade_job` on a worker of a Dask distributed cluster.

Workers must run one task at a time per process (`--nthreads 1`): a process holds a single sandbox uid.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

from grader.batch.work import Graded, Job, grade_job, uniform_report
from grader.errors import UsageError
from grader.model import Verdict

ADDRESS = re.compile(r"^(?:(?:tcp|tls)://[^\s/:]+:\d+|local:\d+)$")


def check_address(address: str) -> str:
    """For argparse: tcp://HOST:PORT (tls:// too) or local:N."""
    if not ADDRESS.match(address) or address == "local:0":
        raise ValueError(address)
    return address


class DaskRunner:
    def __init__(self, address: str) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as error:
            raise UsageError("--cluster needs Dask distributed: pip install '.[dask]' in the grader's checkout") from error
        self.address = address
        self.cluster: Any = None
        if address.startswith("local:"):
            self.cluster = LocalCluster(n_workers=int(address.split(":", 1)[1]), threads_per_worker=1,
                                        processes=True, dashboard_address=None,
                                        silence_logs=logging.ERROR)  # type: ignore[no-untyped-call]
            self.client: Any = Client(self.cluster)  # type: ignore[no-untyped-call]
        else:
            try:
                self.client = Client(address, timeout="15s")  # type: ignore[no-untyped-call]
            except (OSError, TimeoutError) as error:
                raise UsageError(f"cannot reach the Dask scheduler at {address}: {error}") from error
        threads = self.client.nthreads()
        self.workers = len(threads)
        self.crowded = sorted(w for w, n in threads.items() if n > 1)

    def describe(self) -> str:
        where = "a local Dask cluster" if self.cluster is not None else f"the Dask cluster at {self.address}"
        note = (f" ({len(self.crowded)} started with several threads: each grades one submission at a time "
                f"anyway; start workers with --nthreads 1)") if self.crowded else ""
        return f"{self.workers} worker{'s' if self.workers != 1 else ''} of {where}{note}"

    def results(self, jobs: list[Job]) -> Iterator[Graded]:
        from distributed import as_completed

        futures = {self.client.submit(grade_job, job, pure=False): job for job in jobs}
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            job = futures[future]
            try:
                graded: Graded = future.result()
            except Exception as error:  # noqa: BLE001 - e.g. KilledWorker: record it, grade the rest
                report = uniform_report(job.exercise, job.label, Verdict.GRADER_ERROR,
                                        f"the Dask task failed: {type(error).__name__}: {error}")
                graded = Graded(job.key, report, 0.0, 0.0, "-")
            future.release()
            yield graded

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
