"""benchmarks/rush.py's figures: the perfect queue it compares with, where an upload's time goes, the
queue's depth, the servers' memory, a Dask task's bytes."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import TYPE_CHECKING

from tests.batch.classroom import SUFFIX

if TYPE_CHECKING:
    from rush import Upload


def count_by(values: object) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:  # type: ignore[attr-defined]
        counts[value] = counts.get(value, 0) + 1
    return counts


def simulated(uploads: list[Upload], rows: dict, workers: int, fair: bool = False) -> dict[int, float]:
    """Each upload's time to report in a perfect queue: it arrives as it was sent, the first worker free takes
    the next in line with no time lost (first come first served, or `fair`: the server's round robin over
    students), and grades it for as long as the server measured; one graded without a worker takes none."""
    import heapq
    from collections import Counter

    from grader.server.queue import fair_order

    service = {u.number: rows[u.number].grading_seconds or 0.0 for u in uploads}
    arrivals = sorted(uploads, key=lambda u: u.sent)
    ideal = {u.number: 0.0 for u in arrivals if not service[u.number]}
    pending = [u for u in arrivals if service[u.number]]
    free = [(arrivals[0].sent if arrivals else 0.0, index, "") for index in range(workers)]  # (when, worker, student)
    waiting: list[Upload] = []
    in_hand: Counter[str] = Counter()
    last_served: dict[str, int] = {}
    while pending or waiting:
        now, index, student = heapq.heappop(free)
        in_hand[student] -= 1 if student else 0
        if not waiting and pending[0].sent > now:
            now = pending[0].sent
        while pending and pending[0].sent <= now:
            waiting.append(pending.pop(0))
        if fair:
            order = fair_order([u.number for u in waiting], {u.number: u.student for u in waiting}, in_hand, last_served)
            chosen = next(u for u in waiting if u.number == order[0])
        else:
            chosen = waiting[0]
        waiting.remove(chosen)
        in_hand[chosen.student] += 1
        last_served[chosen.student] = len(ideal)
        done = now + service[chosen.number]
        ideal[chosen.number] = done - chosen.sent
        heapq.heappush(free, (done, index, chosen.student))
    return ideal


def task_bytes(exercises: Path, uploads: list[Upload]) -> str:
    """Per exercise: the bytes of a job as a Dask task carries it (its packed exercise sent once per worker,
    a reference in its place), beside the job with the packed exercise in it (as every task carried it)."""
    from dataclasses import replace
    from pickle import dumps

    from grader.course import load_exercise
    from grader.grading import read_submission
    from grader.workers.job import GradingKey, Job, pack, resolve

    figures = []
    for exercise_id in sorted({u.exercise for u in uploads}):
        exercise, expected, digest = resolve(load_exercise(exercises / f"{exercise_id}.yaml"))
        packed = pack(exercise, expected)
        upload = next(u for u in uploads if u.exercise == exercise_id)
        path = exercises.parent / f"task-{exercise_id}{SUFFIX[exercise_id]}"
        path.write_bytes(upload.data)
        handin = read_submission(path, exercise)
        job = Job(GradingKey(handin.digest(), digest, "x" * 12, True), packed, f"{upload.student}/{path.name}", handin,
                  ())
        figures.append(f"{exercise_id} {len(dumps(replace(job, packed_exercise=b'')))} B "
                       f"(with its packed exercise, {len(packed)} B, in it: {len(dumps(job))} B)")
    return "; ".join(figures)


STEPS = (  # where an upload's time to report goes, step by step (the server's moments; the client's at the ends)
    ("upload (sent to stored)", lambda u, row, m: row.submitted_at - u.sent),
    ("queued to claimed", lambda u, row, m: m["claimed"] - row.submitted_at),
    ("claimed to the pool", lambda u, row, m: m["submitted"] - m["claimed"]),
    ("in the pool before a worker began", lambda u, row, m: m["received"] - m["grading"] - m["submitted"]),
    ("grading on a worker", lambda u, row, m: m["grading"]),
    ("its end to stored", lambda u, row, m: m["stored"] - m["received"]),
    ("stored to reported", lambda u, row, m: u.reported - m["stored"]),
)


def breakdown(timed: list[Upload], rows: dict, moments: dict[int, dict[str, float]], ideals: dict[int, float]) -> str:
    """Each step's mean over every upload graded on a worker and over the slowest twentieth of them (those
    that make the p95), beside the ideal queue's wait for the same uploads."""
    graded = sorted((u for u in timed if u.number in moments), key=lambda u: u.reported - u.sent)
    if not graded:
        return "where the time goes: no moments recorded"
    slow = graded[-max(1, len(graded) // 20):]
    lines = [f"where the time goes, mean s over all {len(graded)} graded on a worker | the slowest {len(slow)}:"]
    for name, step in STEPS:
        values = [step(u, rows[u.number], moments[u.number]) for u in graded]
        lines.append(f"  {name:<36} {statistics.fmean(values):7.3f} | "
                     f"{statistics.fmean(values[-len(slow):]):7.3f}")
    for name, pick in (("upload to report", lambda u: u.reported - u.sent),
                       ("ideal queue: its wait", lambda u: ideals[u.number] - (rows[u.number].grading_seconds or 0)),
                       ("ideal queue: upload to report", lambda u: ideals[u.number])):
        lines.append(f"  {name:<36} {statistics.fmean(map(pick, graded)):7.3f} | {statistics.fmean(map(pick, slow)):7.3f}")
    return "\n".join(lines)


def depth_figure(depth: list[tuple[float, int, int]], start: float) -> str:
    """Ten points of the run: seconds in, then queued+running."""
    if not depth:
        return "no samples"
    step = max(1, len(depth) // 10)
    points = depth[::step] + ([depth[-1]] if (len(depth) - 1) % step else [])
    return ", ".join(f"{at - start:.0f}s {queued}+{running}" for at, queued, running in points) + \
        f"; max queued {max(queued for _, queued, _ in depth)}"


def memory_of(samples: list[tuple[float, int]]) -> str:
    """Idle before the rush, its peak, and at the end (the queue drained): a leak shows as an end near the
    peak run after run; a rush's own growth (its requests in flight) is returned or reused after it."""
    if not samples:
        return "no samples"
    mib = [kib / 1024 for _, kib in samples]
    return f"{mib[0]:.0f} MiB idle, peak {max(mib):.0f} MiB, {mib[-1]:.0f} MiB at the end ({len(mib)} samples)"


def met(ok: bool) -> str:
    return "met" if ok else "NOT met"
