"""`grader batch` with and without the fork server (issue 28, "a batch pays each start once"), side by side in
one run, for the N-Queens class (the bundled exercises) and for the data course (examples/data-course,
numpy and pandas in every sandbox). Prints its figures and the command that made them.

    .venv/bin/python benchmarks/fork_server.py [--workers 2] [--students 60] [--data-students 60] [--seed 1]
                                               [--only n-queens|data|line] [--line 15,30,60]

The classes: benchmarks/batch.py's mix for the N-Queens exercises; for the data course every student hands
in an accepted reference (a wrong one in one case out of six), each file made distinct by a comment. No
slow references: their CPU is the tests' own and would only flatter the ratio. The data course's
environment must be built (`grader env build --exercises examples/data-course/exercises`).

tests' CPU = the sum of every test's own CPU as its report gives it (the grader's reading of the sandbox
process while the test ran: the test's child and the harness serving it), in copies of the courses whose
tests are all visible (a hidden test's CPU is reported in tenths of a second); ideal = tests' CPU / workers;
wall = the whole `grader batch` command. Target: wall <= 1.5 x ideal, for both classes, with the fork
server. 'sandbox CPU' is every sandboxed process's CPU, start-up included; 'sandbox/tests' is the share the
starts add, which unlike wall time does not depend on what else the machine runs; 'workers CPU' is the
workers' own share of each grading; 'machine CPU' is every core's busy time during the command, ours or
another program's (near wall x cores: the machine was busy, and not only with us); 'own CPU/ideal' =
(sandbox + workers CPU) / workers / ideal, the ratio a machine of our own would bound wall / ideal by.

The data course's batch as a line (issue 47): batches of the data course at the --line class sizes, fork
server on, in this one run; least squares wall = start + per_grading x gradings. Targets: start <= 2 s,
per_grading <= 1.2 x the ideal's per grading (tests' CPU / workers / gradings, over those runs). The same
line is fitted to the batch's own CPU / workers (every process of it, reaped: main, workers, fork servers,
sandboxes), which the machine's other load does not move: what the wall would be on cores of its own.
Children run without PYTHONDONTWRITEBYTECODE, as on a user's machine.
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from batch import make_class  # noqa: E402  (benchmarks/batch.py: the N-Queens class)

DATA = ROOT / "examples" / "data-course"


@dataclass(frozen=True)
class Run:
    wall: float
    gradings: int
    tests_cpu: float
    sandbox_cpu: float
    worker_cpu: float  # the workers' own CPU for the gradings (checks, sandbox set-up and clean-up, results)
    machine_cpu: float  # every CPU of the machine busy during the command, whoever it served
    workers: int
    total_cpu: float = 0.0  # every process of the batch (main, workers, servers, sandboxes), reaped in turn

    @property
    def bound(self) -> float:
        """What wall / ideal would be with the cores to ourselves: the sandboxes' and workers' CPU per worker."""
        return (self.sandbox_cpu + self.worker_cpu) / self.tests_cpu

    @property
    def ratio(self) -> float:
        return self.wall / (self.tests_cpu / self.workers)


def make_data_class(folder: Path, students: int, seed: int) -> int:
    rng = random.Random(seed)
    files = 0
    for exercise in sorted(p.stem for p in (DATA / "exercises").glob("*.yaml")):
        accepted = sorted((DATA / "reference" / exercise / "accepted").glob("*"))
        wrong = sorted((DATA / "reference" / exercise / "wrong_answer").glob("*"))
        for number in range(students):
            student = folder / f"student{number:03d}"
            student.mkdir(parents=True, exist_ok=True)
            source = rng.choice(wrong) if wrong and rng.random() < 1 / 6 else rng.choice(accepted)
            (student / f"{exercise}.py").write_text(f"# {student.name}\n{source.read_text()}")
            files += 1
    return files


def visible_copy(course: Path, folders: tuple[str, ...], into: Path) -> Path:
    """The course copied with every test visible: a hidden test's CPU is reported rounded to 0.1 s (its
    exact time could encode its input), and the tests' CPU is what the ratio divides by. Returns the copy's
    exercises folder."""
    for name in folders:
        if (course / name).is_dir():
            shutil.copytree(course / name, into / name)
        elif (course / name).is_file():
            shutil.copy(course / name, into / name)
    for spec in (into / "exercises").glob("*.yaml"):
        spec.write_text(spec.read_text().replace("hidden: true", "hidden: false"))
    return into / "exercises"


def warm(exercises: Path) -> None:
    from grader.course import Course
    from grader.expected import expected_values

    for exercise in Course.at(exercises).load_all():
        expected_values(exercise)


def run_batch(folder: Path, exercises: Path, out: Path, workers: int, fork_server: bool) -> Run:
    shutil.rmtree(out, ignore_errors=True)
    # As on a user's machine, which does not set PYTHONDONTWRITEBYTECODE (this workplace does).
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
           "GRADER_FORK_SERVER": "on" if fork_server else "off"}
    started, busy, ours = time.monotonic(), _machine_busy(), _children_cpu()
    subprocess.run([sys.executable, "-m", "grader", "batch", str(folder), "--exercises", str(exercises), "--out",
                    str(out), "--workers", str(workers)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    wall, busy, ours = time.monotonic() - started, _machine_busy() - busy, _children_cpu() - ours
    with sqlite3.connect(out / "results.sqlite") as db:
        gradings, sandbox, own = db.execute(
            "SELECT COUNT(*), SUM(cpu_seconds), SUM(grader_cpu_seconds) FROM gradings WHERE worker != '-'").fetchone()
        tests = db.execute("SELECT SUM(cpu_seconds) FROM outcomes").fetchone()[0]
    return Run(wall, gradings, tests or 0.0, sandbox or 0.0, own or 0.0, busy, workers, ours)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _machine_busy() -> float:
    """Seconds of CPU the whole machine spent busy so far: user, system, interrupts and steal, every core."""
    with open("/proc/stat") as stat:
        ticks = [int(x) for x in stat.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--students", type=int, default=60, help="students of the N-Queens class")
    parser.add_argument("--data-students", type=int, default=60, help="students of the data course")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=("n-queens", "data", "line"),
                        help="run one class only, or only the data course's line")
    parser.add_argument("--line", default="15,30,60", type=sizes,
                        help="the data course's class sizes whose batches (fork server on) fit its line; '' for none")
    args = parser.parse_args()
    if len(args.line) == 1:
        parser.error("--line needs two sizes or more (or '' for none)")
    work = Path(tempfile.mkdtemp(prefix="grader-fork-bench-"))
    os.environ["GRADER_CACHE"] = str(work / "cache")
    courses = {"N-Queens": visible_copy(ROOT, ("exercises", "reference"), work / "n-queens-course"),
               "data course": visible_copy(DATA, ("exercises", "reference", "grader-course.yaml",
                                                  "requirements.txt"), work / "data-course")}
    classes = {"N-Queens": (courses["N-Queens"], make_class, args.students),
               "data course": (courses["data course"], make_data_class, args.data_students)}
    if args.only == "line":
        classes = {}
    elif args.only:
        chosen = {"n-queens": "N-Queens", "data": "data course"}[args.only]
        classes = {chosen: classes[chosen]}
    if args.only in ("n-queens", "data"):
        args.line = []
    line: list[Run] = []
    results: dict[tuple[str, bool], Run] = {}
    loads = []
    try:
        for name, (exercises, make, students) in classes.items():
            folder = work / name.replace(" ", "-")
            make(folder, students, args.seed)
            warm(exercises)
            for fork_server in (True, False):  # interleaved per class: the machine's load hits both alike
                loads.append(os.getloadavg()[0])
                results[(name, fork_server)] = run_batch(folder, exercises, work / f"out-{len(results)}",
                                                         args.workers, fork_server)
        if args.line:
            warm(courses["data course"])
        for students in args.line:
            folder = work / f"line-{students}"
            make_data_class(folder, students, args.seed)
            loads.append(os.getloadavg()[0])
            line.append(run_batch(folder, courses["data course"], work / "out-line", args.workers, True))
        loads.append(os.getloadavg()[0])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"fork server benchmark: {args.workers} workers, {len(os.sched_getaffinity(0))} cores, load average "
          f"before each run and after the last {', '.join(f'{x:.2f}' for x in loads)}")
    print(f"command: .venv/bin/python benchmarks/fork_server.py --workers {args.workers} --students "
          f"{args.students} --data-students {args.data_students} --seed {args.seed} --line "
          f"{','.join(map(str, args.line))!r}" + (f" --only {args.only}" if args.only else ""))
    if results:
        print(f"{'class':<12} {'fork server':>11} {'gradings':>9} {'wall s':>8} {'tests CPU s':>12} {'ideal s':>8} "
              f"{'wall/ideal':>11} {'sandbox CPU s':>14} {'sandbox/tests':>14} {'workers CPU s':>14} "
              f"{'machine CPU s':>14} {'own CPU/ideal':>14}")
    for (name, fork_server), run in results.items():
        print(f"{name:<12} {'on' if fork_server else 'off':>11} {run.gradings:>9} {run.wall:>8.1f} "
              f"{run.tests_cpu:>12.1f} {run.tests_cpu / run.workers:>8.1f} {run.ratio:>11.2f} "
              f"{run.sandbox_cpu:>14.1f} {run.sandbox_cpu / run.tests_cpu:>14.2f} {run.worker_cpu:>14.1f} "
              f"{run.machine_cpu:>14.1f} {run.bound:>14.2f}")
    for name in classes:
        on, off = results[(name, True)], results[(name, False)]
        print(f"{name}: wall / ideal {on.ratio:.2f} with the fork server (target <= 1.5), {off.ratio:.2f} without; "
              f"wall {off.wall / on.wall:.2f}x faster; own CPU / ideal {on.bound:.2f} against {off.bound:.2f}")
    if line:
        print_line(line)


def sizes(text: str) -> list[int]:
    try:
        numbers = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of class sizes: {text!r}") from None
    if any(n < 1 for n in numbers) or len(set(numbers)) != len(numbers):
        raise argparse.ArgumentTypeError(f"class sizes must be distinct and at least 1: {text!r}")
    return numbers


START_TARGET = 2.0  # issue 47: seconds of a batch's fixed start
PER_GRADING_TARGET = 1.2  # issue 47: a grading's cost (the line's slope) / the ideal's per grading


def fit(xs: list[int], ys: list[float]) -> tuple[float, float]:
    """(intercept, slope) of the least-squares line through the points."""
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)
    return mean_y - slope * mean_x, slope


def print_line(runs: list[Run]) -> None:
    """The data course's batch as a line, wall = start + per_grading x gradings (least squares over the
    sizes run), against the ideal's per grading (tests' CPU / workers / gradings, over every run). The same
    line for the batch's own CPU / workers (every process of it): what the wall would be on cores of its
    own, whatever else the machine ran meanwhile."""
    xs = [run.gradings for run in runs]
    start, slope = fit(xs, [run.wall for run in runs])
    cpu_start, cpu_slope = fit(xs, [run.total_cpu / run.workers for run in runs])
    ideal = sum(run.tests_cpu / run.workers for run in runs) / sum(xs)
    print(f"{'data course, fork server on':<28} {'gradings':>9} {'wall s':>8} {'ideal s':>8} {'fitted s':>9} "
          f"{'own CPU/workers s':>18} {'machine CPU s':>14}")
    for run in runs:
        print(f"{'':<28} {run.gradings:>9} {run.wall:>8.1f} {run.tests_cpu / run.workers:>8.1f} "
              f"{start + slope * run.gradings:>9.1f} {run.total_cpu / run.workers:>18.1f} {run.machine_cpu:>14.1f}")
    print(f"the same line in the batch's own CPU / workers: start {cpu_start:.2f} s, per grading "
          f"{cpu_slope * 1000:.0f} ms = {cpu_slope / ideal:.2f} x the ideal's")
    print(f"data course's batch as a line: start {start:.2f} s (target <= {START_TARGET:.0f} s): "
          f"{'met' if start <= START_TARGET else 'not met'}; per grading {slope * 1000:.0f} ms = "
          f"{slope / ideal:.2f} x the ideal's {ideal * 1000:.0f} ms (target <= {PER_GRADING_TARGET}): "
          f"{'met' if slope / ideal <= PER_GRADING_TARGET else 'not met'}")


if __name__ == "__main__":
    main()
