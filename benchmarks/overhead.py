"""Per-test overhead and fixed cost per submission of the isolated path, against a bare interpreter start and
an in-process call. Prints its figures and the command that produced them.

    .venv/bin/python benchmarks/overhead.py [--tests 40] [--submissions 15]

Per-test overhead = the wall time `SubmissionRun.run(test)` takes (fork of the loaded submission, limits,
result back, checks of the reply) minus the time the same call takes inside this already-running Python.
Fixed cost = starting the sandbox (every layer, a fresh interpreter, loading the submission) plus closing it
(killing and reaping everything). "Before" is the naive design this replaces: a fresh interpreter per test.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grader.model import MISSING, CheckerSpec, Exercise, Limits  # noqa: E402
from grader.model import Test as SpecTest  # noqa: E402
from grader.running import SubmissionRun  # noqa: E402
from grader.sandbox.isolation import child_python, detect  # noqa: E402

SOURCE = """
def count_queens(n, row=0, cols=0, down=0, up=0):
    if row == n:
        return 1
    total = 0
    free = ~(cols | down | up) & ((1 << n) - 1)
    while free:
        bit = free & -free
        free ^= bit
        total += count_queens(n, row + 1, cols | bit, (down | bit) << 1, (up | bit) >> 1)
    return total
"""
CALLS = ["count_queens(1)", "count_queens(4)", "count_queens(6)", "count_queens(8)"]


def make_test(call: str) -> SpecTest:
    return SpecTest(name=call, call=call, stdin=None, compare="value", expect=MISSING, hidden=False, big=False,
                    points=1, checker=CheckerSpec("value"), limits=Limits(cpu=2.0))


EXERCISE = Exercise(id="bench", title="bench", kind="function", statement="",
                    tests=tuple(make_test(c) for c in CALLS), path=Path("/nonexistent/exercises/bench.yaml"),
                    entry="count_queens")


def in_process_seconds(call: str, repeats: int = 20) -> float:
    namespace: dict[str, object] = {}
    exec(SOURCE, namespace)
    code = compile(call, "<call>", "eval")
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        eval(code, namespace)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def measure_isolated(tests: int, submissions: int) -> tuple[list[float], list[float], list[float]]:
    """(per-test overheads, sandbox start times, close times), all in seconds."""
    own = {call: in_process_seconds(call) for call in CALLS}
    overheads, starts, closes = [], [], []
    for _ in range(submissions):
        run = SubmissionRun(EXERCISE, SOURCE)
        started = time.perf_counter()
        first = run.run(EXERCISE.tests[0])  # starts the sandbox, loads, runs one test
        first_test = time.perf_counter() - started
        assert first.value == 1, first
        for index in range(tests):
            test = EXERCISE.tests[index % len(CALLS)]
            began = time.perf_counter()
            result = run.run(test)
            elapsed = time.perf_counter() - began
            assert result.has_value, result
            overheads.append(elapsed - own[test.call or ""])
        began = time.perf_counter()
        run.close()
        closes.append(time.perf_counter() - began)
        starts.append(first_test - statistics.median(overheads[-tests:]))
    return overheads, starts, closes


def measure_fresh_interpreter(tests: int) -> list[float]:
    """The design this replaces: one `python3 -I` per test, the call in -c. Overhead per test, seconds."""
    python = child_python()
    own = {call: in_process_seconds(call) for call in CALLS}
    overheads = []
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "submission.py"
        script.write_text(SOURCE)
        for index in range(tests):
            call = CALLS[index % len(CALLS)]
            began = time.perf_counter()
            subprocess.run([python, "-I", "-c", f"exec(open({str(script)!r}).read()); print({call})"],
                           check=True, capture_output=True)
            overheads.append(time.perf_counter() - began - own[call])
    return overheads


def bare_start(repeats: int = 30) -> float:
    python = child_python()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        subprocess.run([python, "-I", "-S", "-c", "pass"], check=True)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=40, help="tests per submission")
    parser.add_argument("--submissions", type=int, default=15)
    args = parser.parse_args()
    isolation = detect().describe()
    ms = 1000.0
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()} (grader), "
          f"{child_python()} (sandbox), {platform.platform()}")
    print(f"layers: {isolation}")
    bare = bare_start()
    overheads, starts, closes = measure_isolated(args.tests, args.submissions)
    fresh = measure_fresh_interpreter(min(args.tests, 40))
    print(f"bare `python -I -S -c pass` start:         median {bare * ms:6.2f} ms")
    print(f"in-process call count_queens(8):            median {in_process_seconds('count_queens(8)') * ms:6.2f} ms")
    print(f"per-test overhead, isolated fork per test:  median {statistics.median(overheads) * ms:6.2f} ms, "
          f"p90 {percentile(overheads, 0.9) * ms:6.2f} ms  ({len(overheads)} tests)")
    fixed = [s + c for s, c in zip(starts, closes)]
    print(f"fixed cost per submission (start + close):  median {statistics.median(fixed) * ms:6.2f} ms "
          f"(start {statistics.median(starts) * ms:.2f}, close {statistics.median(closes) * ms:.2f}; "
          f"{len(fixed)} submissions)")
    print(f"before: fresh `python -I` per test:         median {statistics.median(fresh) * ms:6.2f} ms, "
          f"p90 {percentile(fresh, 0.9) * ms:6.2f} ms per test")


if __name__ == "__main__":
    main()
