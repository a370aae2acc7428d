"""What a million numbers cost to move: the grader's share of a test whose argument or answer is big, against
the bare function on the same data. Prints its figures and the command that produced them.

    .venv/bin/python benchmarks/big_values.py [--rounds 5]

For each case a temporary course (with the data course's environment, which must be built: `grader env
build --exercises examples/data-course/exercises`) runs one test in the real sandbox, every layer on:
  sandbox CPU  = the test's CPU as the grader measures it (the whole sandbox: the request read, the fork,
                 the call, the answer written back);
  grader CPU   = this process's own CPU for `SubmissionRun.run` (sending the request, reading and decoding
                 the reply), the checker excluded;
  bare         = the same function on the same data in the environment's interpreter, nothing else.
grader's share = sandbox CPU + grader CPU - bare; the target is a share <= bare (ratio <= 1).
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.course import Course  # noqa: E402
from grader.environment import environment_of_course  # noqa: E402
from grader.running import SubmissionRun  # noqa: E402

GENERATORS = '''
import random


def floats(count, seed):
    rng = random.Random(seed)
    return [rng.uniform(-1000.0, 1000.0) for _ in range(count)]
'''
CASES = {
    # name: (source, call, what the bare run does with xs)
    "mean of a list (stdlib)": ("def f(xs):\n    return sum(xs) / len(xs)\n", "f(xs)"),
    "numpy mean of a list": ("import numpy as np\ndef f(xs):\n    return float(np.mean(xs))\n", "f(xs)"),
    "zscores: list in, array out": ("import numpy as np\ndef f(xs):\n    x = np.asarray(xs)\n"
                                    "    return (x - x.mean()) / x.std()\n", "f(xs)"),
    "array of a million out": ("import numpy as np\ndef f(xs):\n    return np.arange(1_000_000, dtype=np.float64)\n",
                               "f(xs)"),
}
BARE = """
import sys, time
sys.path.insert(0, {exercises!r})
import generators
xs = generators.floats(1_000_000, 7)
namespace = {{}}
exec({source!r}, namespace)
f = namespace["f"]
f(xs)  # warm
times = []
for _ in range({rounds}):
    started = time.process_time()
    f(xs)
    times.append(time.process_time() - started)
times.sort()
print(times[len(times) // 2])
"""


def course(folder: Path, source: str, call: str) -> Course:
    exercises = folder / "exercises"
    exercises.mkdir(parents=True)
    (folder / "grader-course.yaml").write_text(
        f"environment:\n  requirements: {ROOT / 'examples' / 'data-course' / 'requirements.txt'}\n")
    (exercises / "generators.py").write_text(GENERATORS)
    (exercises / "big.yaml").write_text(
        "title: big\nkind: function\nentry: f\nstatement: x\nlimits: {cpu: 10, memory: 1024}\n"
        f"tests:\n  - name: big\n    call: {call}\n    expect: 0\n    given:\n"
        "      xs: {generator: floats, args: {count: 1000000, seed: 7}}\n")
    (folder / "submission.py").write_text(source)
    return Course.at(exercises)


def measure(name: str, source: str, call: str, rounds: int) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as scratch:
        made = course(Path(scratch), source, call)
        environment = environment_of_course(made.exercises_dir)
        assert environment is not None and environment.built, "build the data course's environment first"
        exercise = made.load("big")
        test = exercise.tests[0]
        sandbox, grader = [], []
        with SubmissionRun(exercise, source) as run:
            run.run(test)  # loaded, warm
            for _ in range(rounds):
                started = time.process_time()
                result = run.run(test)
                grader.append(time.process_time() - started)
                assert not result.sandbox_error and result.has_value, (name, result)
                sandbox.append(result.cpu_seconds)
        bare = subprocess.run([str(environment.path / "bin" / "python"), "-c",
                               BARE.format(exercises=str(made.exercises_dir), source=source, rounds=rounds)],
                              capture_output=True, text=True, check=True)
        return statistics.median(sandbox), statistics.median(grader), float(bare.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"python benchmarks/big_values.py --rounds {args.rounds}  ({platform.node()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    print(f"{'case':32} {'sandbox':>9} {'grader':>9} {'bare':>9} {'share':>9} {'share/bare':>10}")
    for name, (source, call) in CASES.items():
        sandbox, grader, bare = measure(name, source, call, args.rounds)
        share = sandbox + grader - bare
        print(f"{name:32} {sandbox:9.3f} {grader:9.3f} {bare:9.3f} {share:9.3f} {share / bare if bare else 0:10.2f}")


if __name__ == "__main__":
    main()
