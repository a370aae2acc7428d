"""How fast this machine runs a fixed piece of Python in the sandbox's interpreter, and what a calibration
says of the machine it was measured on. The cache keeps the probe's one number (never a limit)."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable

from grader.cache import cache_dir, keep, key_hash
from grader.limits import checked

SPEED_VERSION = "2"


@functools.cache
def cpu_model() -> str:
    """The CPU model, as a calibration says where it was measured and the speed probe is kept."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return os.uname().machine


def machine() -> str:
    """The host and its CPU, as a calibration says where it was measured."""
    return f"{os.uname().nodename} / {cpu_model()} / {os.cpu_count()} CPUs"


@functools.cache
def interpreter() -> str:
    """The interpreter the sandbox runs submissions with, and a fingerprint of its file: an upgrade
    (the same path, a new build) is probed again."""
    from grader.sandbox.isolation import child_python  # a question that runs no code has no sandbox

    python = child_python()
    try:
        status = os.stat(python)
        return f"{python} ({status.st_size} bytes, mtime {status.st_mtime_ns})"
    except OSError:
        return python




# ---------------------------------------------------------------- this machine's speed
# Pure Python of the kind submissions run (loops, integer arithmetic, a dict, calls), timed in CPU seconds
# by the sandbox's interpreter itself; the best of a few runs, as a calibration keeps the best run.
_PROBE = """\
import time
def work():
    seen = {}
    total = 0
    for i in range(100000):
        total += (i * i) % 7
        if i % 5 == 0:
            seen[i % 1000] = total
    return total, len(seen)
best = None
for _ in range(20):  # the best of many short runs: a busy machine's noise only ever adds
    start = time.process_time()
    work()
    spent = time.process_time() - start
    best = spent if best is None else min(best, spent)
print(best)
"""


def speed(probe: Callable[[], float] | None = None) -> float:
    """CPU seconds the probe takes on this machine's sandbox interpreter: measured once per CPU model and
    interpreter and kept in the cache (0.0 when it cannot be run: no scaling then)."""
    key = key_hash(f"{SPEED_VERSION}\0{cpu_model()}\0{interpreter()}".encode()).hexdigest()[:16]
    kept = cache_dir() / f"speed-{key}.json"
    try:  # the cache's number passes the limits' check: a NaN, a negative or a huge one is measured again
        return checked("speed", json.loads(kept.read_text())["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    seconds = (probe or _probe)()
    if seconds > 0:
        keep(kept, json.dumps({"seconds": seconds, "machine": machine(), "python": interpreter()}).encode())
    return seconds


def _probe() -> float:
    import subprocess

    from grader.sandbox.isolation import child_python

    try:
        done = subprocess.run([child_python(), "-I", "-S", "-c", _PROBE], capture_output=True, text=True,
                              timeout=60, check=False)
        return round(checked("speed", float(done.stdout.strip())), 4)
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0.0


def python_version() -> str:
    """The sandbox interpreter's version and path, as people read it (starts it: not for the cache key)."""
    import subprocess  # only here, when a calibration is measured

    from grader.sandbox.isolation import child_python

    python = child_python()
    try:
        done = subprocess.run([python, "-I", "-S", "-c", "import sys; print(sys.version.split()[0])"],
                              capture_output=True, text=True, timeout=30, check=False)
        return f"Python {done.stdout.strip()} ({python})"
    except (OSError, subprocess.SubprocessError):
        return python
