"""`grader check` on a correct submission of each shipped exercise: wall time against the tests' own time.

    .venv/bin/python benchmarks/check.py [--repeats 5] [--format terminal|json]

For each exercise, runs `grader check ID reference/ID/accepted/<first>` as a real command (expected values
already cached), in the report format a student sees by default (the terminal one, drawn with rich) unless
told otherwise, and prints the median wall time, the submission's own time and what grading added on top of the
CLI's own start (measured in the same format on a predict question, which starts no sandbox). Own time = the
file's load (the exercise's prelude and the module's body, timed inside a fresh interpreter like the sandbox's)
+ its tests (the same calls, or runs of the program on the same input, timed inside this already-running
Python). Target: wall <= 1.3 x own time + the fixed cost (50 ms per submission).

The tests' own time is taken in this Python (the grader's), not the sandbox's, and the calls share one
loaded module instead of each starting from a fresh fork: both can only make it smaller, and so the
"added" figure larger. It is the conservative side.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.model import Exercise

ROOT = Path(__file__).resolve().parent.parent
FIXED_BUDGET = 0.050  # seconds per submission (issue 6)
# As a user runs it: this workplace sets PYTHONDONTWRITEBYTECODE, which recompiles every module at every start.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def check(exercise: str, submission: Path, root: Path = ROOT, python: str = sys.executable,
          report_format: str = "json") -> tuple[float, dict[str, object]]:
    """Wall time of one `grader check`, and its JSON report ({} for another format)."""
    started = time.perf_counter()
    done = subprocess.run([python, "-m", "grader", "check", exercise, str(submission), "--format", report_format],
                          capture_output=True, text=True, cwd=root, env=ENV)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"grader check {exercise} failed: {done.stderr}")
    return elapsed, json.loads(done.stdout) if report_format == "json" else {}


def load_exercise(exercise_id: str) -> Exercise:
    """The shipped exercise, loaded once for both timings below."""
    sys.path.insert(0, str(ROOT))
    from grader.course import Course

    return Course.at(ROOT / "exercises").load(exercise_id)


def in_process_seconds(exercise: Exercise, submission: Path, repeats: int) -> float:
    """The tests' own time: each test's call (or, for a program, its run on the test's input) timed inside
    this already-running Python, the file loaded once as the sandbox loads it; the median of `repeats`
    rounds, summed over the tests."""

    code = compile(submission.read_text(), "submission.py", "exec")
    loaded: dict[str, object] = {"__name__": "submission"}
    if exercise.kind == "function":
        exec(exercise.prelude, loaded)  # noqa: S102 - a shipped reference, timed
        exec(code, loaded)  # noqa: S102
    per_test: list[list[float]] = [[] for _ in exercise.tests]
    for _ in range(repeats):
        for index, test in enumerate(exercise.tests):
            with contextlib.redirect_stdout(io.StringIO()):
                stdin, sys.stdin = sys.stdin, io.StringIO(test.stdin or "")
                try:
                    started = time.perf_counter()
                    if test.call is None:
                        exec(code, {"__name__": "__main__"})  # noqa: S102
                    else:
                        eval(test.call, dict(loaded))  # noqa: S307
                    per_test[index].append(time.perf_counter() - started)
                finally:
                    sys.stdin = stdin
    return sum(statistics.median(times) for times in per_test)


LOAD_TIMER = """
import sys, time
prelude, source = sys.stdin.read().split("\\0")
started = time.perf_counter()
namespace = {"__name__": "submission"}
exec(prelude, namespace)
exec(compile(source, "submission.py", "exec"), namespace)
print(time.perf_counter() - started)
"""


def load_seconds(exercise: Exercise, submission: Path, repeats: int) -> float:
    """The file's own load time, as the sandbox loads it once per submission: the exercise's prelude (LeetCode's
    `from typing import ...`, ~20 ms in a fresh interpreter) and the module's body, timed inside a fresh
    interpreter of the sandbox's kind (where nothing is imported yet); the median of `repeats` starts. A
    program (stdin/stdout) has no load step: its whole run is each test's own time."""
    from grader.sandbox.isolation import child_python

    if exercise.kind != "function":
        return 0.0
    text = exercise.prelude + "\0" + submission.read_text()
    times = [float(subprocess.run([child_python(), "-I", "-S", "-c", LOAD_TIMER], input=text, capture_output=True,
                                  text=True, check=True).stdout) for _ in range(repeats)]
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--format", choices=("terminal", "json"), default="terminal",
                        help="the report format timed (default: terminal, what a student sees)")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT",
                        help="another checkout with its own .venv (an older commit): both are timed, run for run "
                             "in turn, so that the machine's load weighs on both alike")
    args = parser.parse_args()
    if args.against:
        compare(args.against.resolve(), args.repeats, args.format)
        return
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    exercises = sorted(p.stem for p in (ROOT / "exercises").glob("*.yaml"))
    references = {e: sorted((ROOT / "reference" / e / "accepted").glob("*"))[0] for e in exercises}
    walls: dict[str, list[float]] = {e: [] for e in exercises}
    for exercise, path in references.items():
        check(exercise, path, report_format=args.format)  # warm the caches: expected values, pages, bytecode
    for _ in range(args.repeats):  # round after round, so that a busy spell weighs on every exercise alike
        for exercise, path in references.items():
            walls[exercise].append(check(exercise, path, report_format=args.format)[0])
    baseline = walls["predict-attacked"]
    print(f"format: {args.format}; baseline (CLI start, spec load, report; no sandbox): "
          f"{statistics.median(baseline) * 1000:.0f} ms")
    print(f"{'exercise':20} {'tests':>5} {'wall ms':>8} {'load own ms':>12} {'tests own ms':>13} {'grader ms':>10} "
          f"{'budget ms':>10}  ok")
    for exercise, path in references.items():
        if exercise == "predict-attacked":
            continue
        spec = load_exercise(exercise)
        if any(t.form != "call" or t.given for t in spec.tests):  # steps, files, generated inputs: not timed here
            print(f"{exercise:20} {len(spec.tests):5} {statistics.median(walls[exercise]) * 1000:8.0f}   "
                  f"(own time not measured: its tests use forms this script does not replay)")
            continue
        tests_own = in_process_seconds(spec, path, args.repeats)
        load = load_seconds(spec, path, args.repeats)
        own = load + tests_own
        wall = statistics.median(walls[exercise])
        # What grading added (sandbox start/close, per-test overhead): each run against the baseline's run of
        # the same round, a few seconds apart, so that the host's drift over the minutes of a run cancels out.
        spent = statistics.median(w - b for w, b in zip(walls[exercise], baseline, strict=True)) - own
        budget = 0.3 * own + FIXED_BUDGET  # the target: wall <= 1.3 x own + fixed cost
        print(f"{exercise:20} {len(spec.tests):5} {wall * 1000:8.0f} {load * 1000:12.0f} {tests_own * 1000:13.0f} "
              f"{spent * 1000:10.0f} {budget * 1000:10.0f}  {'yes' if spent <= budget else 'NO'}")
    print("own time = the file's load + its tests; grader ms = median over rounds of (wall - the round's CLI "
          "baseline) - own time; budget = 0.3 x own time + 50 ms fixed cost")


def compare(other: Path, repeats: int, report_format: str) -> None:
    """Wall time of `grader check` here and in `other`, run for run in turn (which side goes first alternates
    round by round); the medians, and the median of the rounds' own ratios, which the host's drift over the
    minutes of a run does not move."""
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    sides = {"this checkout": (ROOT, sys.executable), f"{other}": (other, str(other / ".venv" / "bin" / "python"))}
    exercises = sorted(p.stem for p in (ROOT / "exercises").glob("*.yaml")
                       if (other / "exercises" / p.name).is_file())  # the exercises both checkouts ship
    print(f"{'exercise':20} " + " ".join(f"{name[-24:]:>24}" for name in sides) + "   ratio  (run for run)")
    for exercise in exercises:
        walls: dict[str, list[float]] = {name: [] for name in sides}
        for round_ in range(repeats + 1):
            order = list(sides.items()) if round_ % 2 else list(sides.items())[::-1]
            for name, (root, python) in order:
                submission = sorted((root / "reference" / exercise / "accepted").glob("*"))[0]
                wall = check(exercise, submission, root, python, report_format)[0]
                if round_:  # the first round warms caches
                    walls[name].append(wall)
        here, there = (statistics.median(w) * 1000 for w in walls.values())
        paired = statistics.median(a / b for a, b in zip(*walls.values(), strict=True))
        print(f"{exercise:20} {here:21.0f} ms {there:21.0f} ms   {here / there:.2f}   {paired:.2f}")


if __name__ == "__main__":
    main()
