"""`grader batch` on a generated class of 200 students: wall time, submissions per second, the ratio of wall
time to the ideal, and the speed-up from 1 to 2 workers. Prints its figures and the command that made them.

    .venv/bin/python benchmarks/batch.py [--workers N] [--students 200] [--seed 1]

The class: every student answers the 8 bundled exercises with a shipped reference (accepted 72 %, wrong
answer 14 %, runtime error 5 %, timeout 2 %, syntax error 2 %, missing 5 %), each file made distinct by a
comment, so nothing is shared and every submission really runs. Expected values are computed before the
clock starts (they are cached on disk in real use too).

ideal = (CPU time of the submissions' sandboxed processes, every test and interpreter start-up included,
as the kernel counted it) / workers. wall = the whole `grader batch` command, outputs included. grader CPU =
the CPU the command used besides the sandboxes (the batch, its workers, the outputs): the overhead, which
unlike wall time does not depend on what else the machine is running; 'per grading ms' is the part of it
spent in the workers for each submission (grade()'s checks, sandbox set-up and teardown, reading results).
Targets: wall / ideal <= 1.15 with the default workers; speed-up from 1 to 2 workers >= 1.8.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MIX = (("accepted", 72), ("wrong_answer", 14), ("runtime_error", 5), ("timeout", 2), ("syntax_error", 2),
       ("missing", 5))
SYNTAX_ERROR = "def broken(:\n    pass\n"


@dataclass(frozen=True)
class Run:
    workers: int
    wall: float  # the whole command
    grading: float  # the grading phase, as the database recorded it
    submissions: int  # student x exercise, missing files included
    gradings: int  # submissions run in the sandbox
    cpu: float  # sandboxed processes' CPU, summed
    worker_cpu: float  # the workers' own CPU for the gradings (checks, sandbox set-up, reading results)
    total_cpu: float  # the whole command's CPU: the batch, its workers and their sandboxes
    waiting: float  # inside gradings, neither the sandbox's nor the worker's CPU: start-up waits, preemption
    machine_cpu: float  # every CPU of the machine busy during the command (/proc/stat), whoever it served

    @property
    def ideal(self) -> float:
        return self.cpu / self.workers

    @property
    def ratio(self) -> float:
        return self.wall / self.ideal if self.ideal else float("nan")


def make_class(folder: Path, students: int, seed: int) -> int:
    """Writes the class; returns how many files it holds."""
    rng = random.Random(seed)
    verdicts, weights = zip(*MIX, strict=True)
    files = 0
    for exercise in sorted(p.stem for p in (ROOT / "exercises").glob("*.yaml")):
        references = {v: sorted((ROOT / "reference" / exercise / v).glob("*")) for v in verdicts}
        suffix = ".txt" if exercise.startswith("predict") else ".py"
        for number in range(students):
            student = folder / f"student{number:03d}"
            student.mkdir(parents=True, exist_ok=True)
            verdict = rng.choices(verdicts, weights)[0]
            if verdict == "missing":
                continue
            candidates = references.get(verdict) or references["wrong_answer"] or references["accepted"]
            text = SYNTAX_ERROR if verdict == "syntax_error" and suffix == ".py" else \
                rng.choice(candidates).read_text()
            if suffix == ".py":
                text = f"# {student.name}\n{text}"  # distinct files: identical ones would be graded once
            (student / f"{exercise}{suffix}").write_text(text)
            files += 1
    return files


def warm_cache() -> None:
    from grader.course import Course
    from grader.expected import expected_values

    for exercise in Course.at(ROOT / "exercises").load_all():
        expected_values(exercise)


def run_batch(folder: Path, out: Path, workers: int) -> Run:
    shutil.rmtree(out, ignore_errors=True)
    before, machine_before = _children_cpu(), _machine_busy()
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out), "--workers",
                    str(workers)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    wall = time.monotonic() - started
    total_cpu = _children_cpu() - before
    machine_cpu = _machine_busy() - machine_before
    with sqlite3.connect(out / "results.sqlite") as db:
        grading = db.execute("SELECT finished_at - started_at FROM runs").fetchone()[0]
        submissions = db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]
        gradings, cpu, worker_cpu, waiting = db.execute(
            "SELECT COUNT(*), SUM(cpu_seconds), SUM(grader_cpu_seconds), "
            "SUM(wall_seconds - cpu_seconds - grader_cpu_seconds) FROM gradings WHERE worker != '-'").fetchone()
    return Run(workers, wall, grading, submissions, gradings, cpu, worker_cpu, total_cpu, waiting, machine_cpu)


def _machine_busy() -> float:
    """Seconds of CPU the whole machine spent busy so far: user, system, interrupts and steal, every core."""
    with open("/proc/stat") as stat:
        ticks = [int(x) for x in stat.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # minus idle and iowait


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)),
                        help="workers of the main run (default: one per core)")
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the class and the outputs")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="grader-bench-"))
    os.environ["GRADER_CACHE"] = str(work / "cache")
    try:
        files = make_class(work / "class", args.students, args.seed)
        warm_cache()
        runs = {args.workers: run_batch(work / "class", work / f"out-{args.workers}", args.workers)}
        for workers in (1, 2):
            if workers not in runs:
                runs[workers] = run_batch(work / "class", work / f"out-{workers}", workers)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    report(args, files, runs)


def report(args: argparse.Namespace, files: int, runs: dict[int, Run]) -> None:
    main_run = runs[args.workers]
    load = os.getloadavg()
    print(f"grader batch benchmark: {args.students} students x 8 exercises = {main_run.submissions} submissions "
          f"({files} files, {main_run.gradings} run in the sandbox), {len(os.sched_getaffinity(0))} cores, "
          f"load average before the last run {load[0]:.2f}")
    print(f"command: .venv/bin/python benchmarks/batch.py --workers {args.workers} --students {args.students} "
          f"--seed {args.seed}")
    print(f"{'workers':>8} {'wall s':>8} {'grading s':>10} {'subm/s':>8} {'sandbox CPU s':>14} {'ideal s':>8} "
          f"{'wall/ideal':>11} {'grader CPU s':>13} {'per grading ms':>15}")
    for workers, run in sorted(runs.items(), key=lambda item: -item[0]):
        print(f"{workers:>8} {run.wall:>8.1f} {run.grading:>10.1f} {run.submissions / run.wall:>8.2f} "
              f"{run.cpu:>14.1f} {run.ideal:>8.1f} {run.ratio:>11.3f} {run.total_cpu - run.cpu:>13.1f} "
              f"{run.worker_cpu / run.gradings * 1000:>15.1f}")
    speedup = runs[1].wall / runs[2].wall
    print(f"wall / ideal with {args.workers} workers: {main_run.ratio:.3f} (target <= 1.15)")
    print(f"speed-up from 1 to 2 workers: {speedup:.2f}x (target >= 1.8)")
    rest = main_run.total_cpu - main_run.cpu - main_run.worker_cpu
    print(f"where the {args.workers}-worker run's time went, per worker: sandbox CPU "
          f"{main_run.cpu / args.workers:.1f} s, worker's own CPU {main_run.worker_cpu / args.workers:.1f} s, "
          f"waiting inside gradings {main_run.waiting / args.workers:.1f} s (start-up waits, preemption); "
          f"the rest of our CPU (the batch process, worker start-up, hand-off of jobs, outputs) {rest:.1f} s; "
          f"CPU the machine spent on anything else while it "
          f"ran (kernel threads, other programs, steal) {main_run.machine_cpu - main_run.total_cpu:.1f} s")
    busy = (main_run.cpu + main_run.worker_cpu) / args.workers
    print(f"wall / (sandbox + workers' own CPU) / {args.workers} workers: {main_run.wall / busy:.3f} "
          f"(the batch's own scheduling, start-up and outputs; 'per grading ms' is the core's overhead per "
          f"submission, in the worker)")


if __name__ == "__main__":
    main()
