"""Mutants per second against `grader batch` on the same files: the mutants of one exercise are graded as a
batch grades a class, so the two should run at one speed. Prints its figures and the command that made them.

    .venv/bin/python benchmarks/mutants.py [--exercise count-queens] [--mutants 40] [--workers 2]

Both runs grade the same N files (the exercise's first N mutants, chosen as `grader validate --mutants
--most N` chooses them) under the same calibrated limits, every test run:
- mutants: grader.mutants.run.mutate_exercises, as `grader validate --mutants` calls it after validating,
  the survivors' probes included (they are part of the work);
- batch: `grader batch --all` on a class folder of N students, student i handing in mutant i.
Expected values are computed before either clock starts (they are cached on disk in real use too). The
machine is shared: the figures are for comparing the two runs with each other, run one after the other.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercise", default="count-queens")
    parser.add_argument("--mutants", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    from grader.batch.plan import resolve
    from grader.course import Course
    from grader.mutants.run import Status, _mutants_of, mutate_exercises

    course = Course.at(ROOT / "exercises")
    exercise = course.load(args.exercise)
    resolve(exercise)  # expected values into the cache, before any clock
    chosen = [r.mutant for r in _mutants_of(exercise, args.mutants).results]

    started = time.monotonic()
    (entry,) = mutate_exercises(course, [exercise], workers=args.workers, most=args.mutants)
    mutants_wall = time.monotonic() - started
    probed = sum(1 for r in entry.results if r.status in (Status.EQUIVALENT, Status.SURVIVED)
                 and not r.why.startswith("marked"))  # a survivor the spec marks equivalent is not probed

    with tempfile.TemporaryDirectory(prefix="bench-mutants-") as tmp:
        root = Path(tmp)
        for number, mutant in enumerate(chosen):
            folder = root / "class" / f"student{number:03d}"
            folder.mkdir(parents=True)
            (folder / f"{exercise.id}.py").write_text(mutant.source, encoding="utf-8")
        command = [sys.executable, "-m", "grader", "batch", str(root / "class"), "--exercises",
                   str(ROOT / "exercises"), "--only", exercise.id, "--all", "--workers", str(args.workers),
                   "--out", str(root / "out"), "--outputs", "csv"]
        started = time.monotonic()
        subprocess.run(command, check=False, capture_output=True)
        batch_wall = time.monotonic() - started

    n = len(chosen)
    print(f"{exercise.id}: {n} files, {args.workers} workers, {len(exercise.tests)} tests each")
    print(f"  validate --mutants : {mutants_wall:7.1f} s  {n / mutants_wall:5.2f} mutants/s "
          f"({probed} survivors probed on top)")
    print(f"  grader batch       : {batch_wall:7.1f} s  {n / batch_wall:5.2f} files/s")
    print(f"  ratio mutants/batch: {mutants_wall / batch_wall:5.2f}")
    print(f"command: .venv/bin/python benchmarks/mutants.py --exercise {exercise.id} --mutants {n} "
          f"--workers {args.workers}")


if __name__ == "__main__":
    main()
