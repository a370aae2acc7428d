"""A real Dask LocalCluster for the tests, in a process of its own (so the test process stays free of
Dask's threads): prints the scheduler's address, then runs until its standard input closes."""

from __future__ import annotations

import logging
import sys

import dask
from distributed import LocalCluster

from grader.workers.cluster import grading_config


def main() -> None:
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    # One thread per worker process: a process holds one sandbox uid (docs/batch.md). Told what a deployment's
    # workers are (grader/workers/dask.yaml).
    with dask.config.set(grading_config()), LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster:  # type: ignore[no-untyped-call]
        print(cluster.scheduler_address, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
