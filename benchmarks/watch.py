"""`grader check --watch`: what a re-check costs on top of the student's own code, against a one-shot check.

    .venv/bin/python benchmarks/watch.py [--repeats 9] [--exercise count-queens]

Starts `grader check ID FILE --watch` on a copy of the exercise's first accepted reference, then saves the
file again and again (a changed comment each time) and times each save until the report's last line is
printed: the re-check as a student waits for it, the watcher's own settling step included. A one-shot
`grader check` of the same file is timed as well. Own time = the file's load + its tests, measured as
benchmarks/check.py measures it, again in every round just before its save and just after its report: this
host's speed drifts by tens of percent over a minute, so each re-check is set against its own round's.
Target: the median over rounds of (re-check - own) <= 30 ms.
"""

from __future__ import annotations

import argparse
import os
import platform
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

import check as one_shot  # noqa: E402
from check import ENV, check, load_exercise  # noqa: E402

READY = "Watching "  # the watcher's line after each report


def own_seconds(spec: object, submission: Path, repeats: int) -> float:
    return one_shot.load_seconds(spec, submission, repeats) + one_shot.in_process_seconds(spec, submission, repeats)


def reports(process: subprocess.Popen[str]) -> queue.Queue[str]:
    """The watcher's lines, read on a thread of their own: a wait for the next report never blocks the clock."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=read, daemon=True).start()
    return lines


def wait_for_report(lines: queue.Queue[str], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        line = lines.get(timeout=max(deadline - time.monotonic(), 0.001))
        if not line:
            raise SystemExit("the watcher ended")
        if line.startswith(READY):
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--exercise", default="count-queens")
    args = parser.parse_args()
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, load average "
          f"{os.getloadavg()[0]:.2f}")
    reference = sorted((ROOT / "reference" / args.exercise / "accepted").glob("*"))[0]
    folder = Path(tempfile.mkdtemp())
    try:
        submission = folder / reference.name
        shutil.copy(reference, submission)
        spec = load_exercise(args.exercise)
        check(args.exercise, submission)  # warm the caches: expected values, bytecode
        once, once_own = [], []
        for _ in range(args.repeats):
            once_own.append(own_seconds(spec, submission, 3))
            once.append(check(args.exercise, submission, report_format="terminal")[0])
        process = subprocess.Popen([sys.executable, "-m", "grader", "check", args.exercise, str(submission),
                                    "--watch"], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=ENV)
        lines = reports(process)
        try:
            wait_for_report(lines)
            again, own = [], []
            text = reference.read_text()
            for round_ in range(args.repeats):
                own_before = own_seconds(spec, submission, 3)
                time.sleep(0.3)  # a student's pause between saves; the watcher is idle
                started = time.perf_counter()
                submission.write_text(f"{text}\n# save {round_}\n")
                wait_for_report(lines)
                again.append(time.perf_counter() - started)
                own.append((own_before + own_seconds(spec, submission, 3)) / 2)
        finally:
            process.terminate()
            process.wait(10)
    finally:
        shutil.rmtree(folder)
    print(f"exercise {args.exercise}: {len(spec.tests)} tests, own time {statistics.median(own) * 1000:.0f} ms "
          f"(median of the rounds; from {min(own) * 1000:.0f} to {max(own) * 1000:.0f} ms)")
    more_once = statistics.median(w - o for w, o in zip(once, once_own))
    print(f"one-shot grader check: {statistics.median(once) * 1000:.0f} ms, {more_once * 1000:.0f} ms more than own")
    added = statistics.median(w - o for w, o in zip(again, own))
    print(f"re-check on save (--watch): {statistics.median(again) * 1000:.0f} ms, {added * 1000:.0f} ms more than "
          f"own; target <= 30 ms: {'yes' if added <= 0.030 else 'NO'}")


if __name__ == "__main__":
    main()
