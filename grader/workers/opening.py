"""Which pool a front door grades on: local worker processes or a Dask cluster. Above both pools (each of
which stands on pool.py's `Pool`), so that the base imports neither."""

from __future__ import annotations

from pathlib import Path

from grader.workers.pool import Pool


def open_pool(workers: int, cluster: str | None, exercises_dir: Path) -> Pool:
    """The pool a front door grades on: `cluster` (tcp://HOST:PORT or local:N) names a Dask cluster, else
    `workers` local processes. The workers of a course with an environment load numpy and pandas at start,
    for its answers, whoever opens the pool."""
    if cluster:
        from grader.workers.cluster import DaskPool

        return DaskPool(cluster)
    from grader.environment import environment_of_course
    from grader.workers.local import LocalPool

    return LocalPool(workers, data_values=environment_of_course(exercises_dir) is not None)
