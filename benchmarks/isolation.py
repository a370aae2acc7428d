"""What the isolation layers cost: per test and per submission, every layer this machine has against
GRADER_LAYERS=none (rlimits only, the grader's own uid). Prints medians and the command that produced them.

    .venv/bin/python benchmarks/isolation.py [--rounds 6] [--submissions 8] [--tests 30]

Per test = the wall time of SubmissionRun.run() for a trivial test in a sandbox already started (fork of the
loaded submission, limits, sweep and reap, the reply read back). Per submission = starting the sandbox
(layers, interpreter, loading) plus closing it (kill, reap, cgroup and folder removed), i.e. the first test's
time minus a per-test time, plus close(). The two modes run in alternating rounds, each in a fresh process
(layer detection is cached per process), so both see the same background load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

MODES = {"layers": None, "bare": "none"}
SOURCE = "def square(n):\n    return n * n\n"


def measure(submissions: int, tests: int) -> dict[str, object]:
    """In this process: per-test and per-submission wall times, in milliseconds."""
    from grader.model import MISSING, CheckerSpec, Exercise, Limits
    from grader.model import Test as SpecTest
    from grader.running import SubmissionRun
    from grader.sandbox.isolation import detect

    test = SpecTest(name="square(3)", call="square(3)", stdin=None, compare="value", expect=9, hidden=False,
                    big=False, points=1, checker=CheckerSpec("value"), limits=Limits(cpu=1.0))
    exercise = Exercise(id="bench", title="bench", kind="function", statement="", tests=(test,),
                        path=Path("/nonexistent/exercises/bench.yaml"), entry="square")
    assert test.expect is not MISSING
    per_test: list[float] = []
    firsts: list[float] = []
    closes: list[float] = []
    for _ in range(submissions):
        run = SubmissionRun(exercise, SOURCE)
        started = time.perf_counter()
        assert run.run(test).value == 9
        firsts.append(time.perf_counter() - started)
        for _ in range(tests):
            started = time.perf_counter()
            assert run.run(test).value == 9
            per_test.append(time.perf_counter() - started)
        started = time.perf_counter()
        run.close()
        closes.append(time.perf_counter() - started)
    test_ms = statistics.median(per_test) * 1000
    fixed = [(first * 1000 - test_ms) + close * 1000 for first, close in zip(firsts, closes)]
    return {"isolation": detect().describe(), "per_test": per_test, "fixed_ms": fixed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--submissions", type=int, default=8, help="sandboxes per round and mode")
    parser.add_argument("--tests", type=int, default=30, help="tests per sandbox")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.submissions, args.tests)))
        return
    samples: dict[str, dict[str, list[float]]] = {m: {"per_test": [], "fixed_ms": []} for m in MODES}
    names: dict[str, str] = {}
    for _ in range(args.rounds):
        for mode, layers in MODES.items():
            env = dict(os.environ)
            env.pop("GRADER_LAYERS", None)
            if layers is not None:
                env["GRADER_LAYERS"] = layers
            out = subprocess.run([sys.executable, __file__, "--child", "--submissions", str(args.submissions),
                                  "--tests", str(args.tests)], env=env, capture_output=True, text=True, check=True)
            data = json.loads(out.stdout)
            names[mode] = data["isolation"]
            samples[mode]["per_test"] += data["per_test"]
            samples[mode]["fixed_ms"] += data["fixed_ms"]
    command = " ".join(["python", "benchmarks/isolation.py", f"--rounds {args.rounds}",
                        f"--submissions {args.submissions}", f"--tests {args.tests}"])
    print(f"command: {command}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}, uid {os.geteuid()}")
    medians = {}
    for mode in MODES:
        per_test = statistics.median(samples[mode]["per_test"]) * 1000
        fixed = statistics.median(samples[mode]["fixed_ms"])
        medians[mode] = (per_test, fixed)
        count = len(samples[mode]["per_test"]), len(samples[mode]["fixed_ms"])
        print(f"{mode:>6}: per test {per_test:6.2f} ms (n={count[0]}), per submission {fixed:6.1f} ms "
              f"(n={count[1]})  [{names[mode]}]")
    (layered_test, layered_fixed), (bare_test, bare_fixed) = medians["layers"], medians["bare"]
    print(f"  cost: per test {layered_test - bare_test:+.2f} ms, per submission {layered_fixed - bare_fixed:+.1f} ms")


if __name__ == "__main__":
    main()
