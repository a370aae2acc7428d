"""Time limits from the accepted references, measured on the machine that grades.

A test's CPU limit is max(floor, multiplier x the CPU time of its slowest accepted reference). Measuring
takes seconds, so it happens only in `grader validate` / `grader calibrate`; the result is cached per
machine, sandbox interpreter and content (of the spec's runnable parts and of the accepted references),
and `Course.load` applies a cached calibration when there is one, never measuring on its own.

A CPU limit written in the spec wins over calibration: on a test (`tests: - limits: {cpu: ...}`) for
that test, on the exercise (`limits: {cpu: ...}`) for every test. `calibration: {floor, multiplier}`
in the spec changes the rule for one exercise.
"""

from __future__ import annotations

import functools
import json
import math
import os
import time
from dataclasses import asdict, replace
from pathlib import Path

from grader.cache import cache_dir, keep, key_hash, write_atomically
from grader.kinds import kind_of
from grader.kinds.base import accepted_references
from grader.model import CalibrationRule, Exercise, Test
from grader.records import record

CALIBRATION_VERSION = "2"  # 2: keyed by the CPU model, not the host
REPEATS = 3  # runs per reference and test, when more runs could still change the limit
MEASUREMENT_CEILING = 20.0  # s of CPU an accepted reference may use on one test while it is measured


class CalibrationError(Exception):
    """An accepted reference could not be timed: it failed, timed out or there is none."""


@record
class TestTiming:
    """One test's limit and the measurements it came from."""

    test: str
    limit: float
    source: str  # "calibrated" (multiplier x slowest), "floor" or "written" (the spec's own)
    slowest_reference: str
    slowest_seconds: float  # the slowest accepted reference's best (minimum) CPU time
    samples: dict[str, list[float]]  # reference file name -> CPU seconds of each run


@record
class Calibration:
    exercise: str
    key: str
    machine: str
    python: str
    settings: CalibrationRule
    tests: dict[str, TestTiming]
    measured_at: str = ""
    measure_seconds: float = 0.0  # wall time the measurement took
    fresh: bool = False  # measured just now rather than read from the cache

    def limit_of(self, test: str) -> float | None:
        timing = self.tests.get(test)
        return timing.limit if timing else None


# ---------------------------------------------------------------- the cache key
def _content(reference: Path) -> list[object]:
    """What of a reference its timing depends on: a file's bytes, or every file of a folder with its name."""
    if not reference.is_dir():
        return [reference.name, reference.read_bytes()]
    return [reference.name, *((str(p.relative_to(reference)), p.read_bytes()) for p in sorted(reference.rglob("*"))
                              if p.is_file())]


@functools.cache
def cpu_model() -> str:
    """The CPU model: with the interpreter, the tests and the references, what a measured limit depends on.
    Never the host's name: Gradescope builds the image on one host and grades in containers named otherwise."""
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
    (the same path, a new build) changes the key without starting it."""
    from grader.sandbox.isolation import child_python  # a question that runs no code has no sandbox

    python = child_python()
    try:
        status = os.stat(python)
        return f"{python} ({status.st_size} bytes, mtime {status.st_mtime_ns})"
    except OSError:
        return python


def written_cpu(test: Test) -> float | None:
    """The CPU limit the spec wrote for this test (on it or on its exercise), which calibration leaves alone."""
    return test.limits.cpu if test.limits.cpu_written else None


def calibration_key(exercise: Exercise) -> str:
    """Everything a limit depends on: the CPU model, the interpreter, what the tests run, the accepted references."""
    digest = key_hash()
    parts: list[object] = [CALIBRATION_VERSION, cpu_model(), interpreter(), exercise.id, exercise.kind,
                           exercise.entry, exercise.prelude, exercise.test_setup, exercise.calibration]
    parts += [(t.name, t.call, t.stdin, t.compare, written_cpu(t)) for t in exercise.tests]
    for reference in accepted_references(exercise):
        parts += _content(reference)
    for part in parts:
        digest.update(repr(part).encode() + b"\0")
    return digest.hexdigest()


def _cache_path(key: str) -> Path:
    return cache_dir() / f"calibration-{key}.json"


def course_file(exercise: Exercise) -> Path:
    """Where the course keeps its exercise's calibrations, beside the spec: they travel with the course
    folder and the bundles made from it (measured while Gradescope builds its image, read when it grades)."""
    return exercise.path.parent / CALIBRATIONS / f"{exercise.id}.json"


CALIBRATIONS = ".calibration"
KEPT_PER_EXERCISE = 8  # machines a course file remembers, the latest kept


# ---------------------------------------------------------------- reading and applying
def cached_calibration(exercise: Exercise) -> Calibration | None:
    """The calibration of this exercise on this machine, if one was measured for its current content."""
    if not kind_of(exercise.kind).calibrated(exercise) or not accepted_references(exercise):
        return None
    return _read(exercise, calibration_key(exercise))


def with_calibrated_limits(exercise: Exercise) -> Exercise:
    """The exercise with each test's CPU limit from the cached calibration; unchanged when there is none."""
    calibration = cached_calibration(exercise)
    return apply(exercise, calibration) if calibration else exercise


def apply(exercise: Exercise, calibration: Calibration) -> Exercise:
    """Each test with its calibrated CPU limit, saying so: a report names the limit and where it came from."""
    tests = tuple(_with_cpu(test, calibration.tests.get(test.name), calibration) for test in exercise.tests)
    return replace(exercise, tests=tests)


def _with_cpu(test: Test, timing: TestTiming | None, calibration: Calibration) -> Test:
    if timing is None or not timing.limit or test.limits.cpu_written:
        return test
    how = "the calibration floor, " if timing.source == "floor" else ""
    source = f"{how}calibrated on this machine at {calibration.measured_at or 'an unknown time'}"
    # The wall-clock backstop follows (Limits.wall_seconds is 3 x cpu + 2) unless the spec wrote one.
    return replace(test, limits=replace(test.limits, cpu=timing.limit, cpu_source=source))


def stale_results(exercises: list[Exercise], store_path: Path) -> list[str]:
    """What the limits these (calibrated) exercises now have make stale in the batch store at `store_path`:
    one line per exercise whose stored results were graded under other CPU limits. The next `grader batch`
    on that folder grades them again (the limits are part of a result's key), never mixing the two."""
    from grader.batch.store import Store  # only when asked about a batch

    if not store_path.is_file():
        return []
    store = Store(store_path)
    try:
        pinned = store.pinned_limits()
        lines = []
        for exercise in exercises:
            before = pinned.get(exercise.id)
            if not before:
                continue
            changed = [f"{t.name}: {before[t.name][0]:.2f} s -> {t.limits.cpu:.2f} s" for t in exercise.tests
                       if t.name in before and before[t.name][0] != t.limits.cpu]
            if changed:
                count = store.count_of(exercise.id)
                lines.append(f"{exercise.id}: {count} stored result{'s' if count != 1 else ''} in "
                             f"{store_path.parent} were graded under other CPU limits ({'; '.join(changed)}); "
                             f"the next grader batch there grades them again")
        return lines
    finally:
        store.close()


def _read(exercise: Exercise, key: str) -> Calibration | None:
    """The calibration kept for `key`: in the course's own file first, then in this machine's cache."""
    try:
        kept = json.loads(course_file(exercise).read_text()).get(key)
    except (OSError, ValueError, AttributeError):
        kept = None
    if kept is None:
        try:
            kept = json.loads(_cache_path(key).read_text())
        except (OSError, ValueError):
            return None
    try:
        data = dict(kept)
        tests = {name: TestTiming(**timing) for name, timing in data.pop("tests").items()}
        settings = CalibrationRule(**data.pop("settings"))
        return Calibration(**data, settings=settings, tests=tests)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def _write(exercise: Exercise, calibration: Calibration) -> None:
    data = asdict(calibration)
    data.pop("fresh")
    keep(_cache_path(calibration.key), json.dumps(data, indent=1).encode())
    path = course_file(exercise)
    try:
        kept = json.loads(path.read_text())
        kept = kept if isinstance(kept, dict) else {}
    except (OSError, ValueError):
        kept = {}
    kept.pop(calibration.key, None)
    kept[calibration.key] = data  # last: the latest machine is the last entry, the oldest ones dropped
    kept = dict(list(kept.items())[-KEPT_PER_EXERCISE:])
    try:
        path.parent.mkdir(exist_ok=True)
        write_atomically(path, json.dumps(kept, indent=1).encode())
    except OSError:
        pass  # a read-only course (an installed package): this machine's cache keeps it


# ---------------------------------------------------------------- measuring
def calibrate(exercise: Exercise, *, force: bool = False) -> Calibration | None:
    """The calibration of `exercise` (as written, not already calibrated): from the cache, or measured now.
    None for an exercise with nothing to time (a predict exercise)."""
    if not kind_of(exercise.kind).calibrated(exercise):
        return None
    settings = exercise.calibration
    references = accepted_references(exercise)
    if not references:
        raise CalibrationError(f"no accepted reference in {exercise.reference_dir / 'accepted'} to time the tests with")
    key = calibration_key(exercise)
    if not force:
        cached = _read(exercise, key)
        if cached is not None:
            return cached
    started = time.monotonic()
    samples: dict[str, dict[str, list[float]]] = {test.name: {} for test in exercise.tests}
    for reference in references:
        for name, runs in _measure(exercise, reference, settings).items():
            samples[name][reference.name] = runs
    calibration = Calibration(
        exercise=exercise.id, key=key, machine=machine(), python=python_version(), settings=settings,
        tests={test.name: _timing(test, samples[test.name], settings) for test in exercise.tests},
        measured_at=time.strftime("%Y-%m-%d %H:%M:%S"), measure_seconds=round(time.monotonic() - started, 2),
        fresh=True)
    _write(exercise, calibration)
    return calibration


def _measure(exercise: Exercise, reference: Path, settings: CalibrationRule) -> dict[str, list[float]]:
    """CPU seconds of each run of each test. Runs are repeated only while the minimum could still move the
    limit above the floor: a test whose first run x multiplier is under the floor gets the floor anyway."""
    from grader.handins import read_handin
    from grader.verdicts import verdict_for  # the grading stack only when measuring: Course.load stays light
    from grader.running import SubmissionRun

    generous = tuple(replace(t, limits=replace(t.limits, cpu=max(MEASUREMENT_CEILING, t.limits.cpu)))
                     for t in exercise.tests)
    runnable = replace(exercise, tests=generous)
    private = (exercise.path.parent, exercise.reference_dir.parent, cache_dir())
    measured: dict[str, list[float]] = {}
    handin = read_handin(reference, exercise)
    if not handin.ok:
        raise CalibrationError(f"the accepted reference {reference.name} cannot be read: {handin.refused}")
    with SubmissionRun(runnable, handin.source, private, modules=handin.modules) as run:
        for test in generous:
            runs: list[float] = []
            while not runs or (len(runs) < REPEATS and settings.multiplier * min(runs) > settings.floor):
                result = run.run(test)
                verdict, feedback, _ = verdict_for(test, result)
                if verdict is not None:
                    raise CalibrationError(f"the accepted reference {reference.name} cannot be timed on test "
                                           f"'{test.name}': {verdict}: {feedback}")
                runs.append(round(result.cpu_seconds, 4))
            measured[test.name] = runs
    return measured


def _timing(test: Test, samples: dict[str, list[float]], settings: CalibrationRule) -> TestTiming:
    # The minimum of a reference's runs: CPU-time noise only ever adds (contention, cache misses, frequency
    # changes), so the fastest run is the closest to the code's own cost and the most repeatable number;
    # the multiplier is the headroom for a busy machine.
    best = {name: min(runs) for name, runs in samples.items()}
    slowest = max(best, key=lambda name: best[name])
    slowest_seconds = best[slowest]
    cpu = written_cpu(test)
    if cpu is not None:
        limit, source = cpu, "written"
    elif settings.multiplier * slowest_seconds > settings.floor:
        limit, source = math.ceil(settings.multiplier * slowest_seconds * 100) / 100, "calibrated"
    else:
        limit, source = settings.floor, "floor"
    return TestTiming(test.name, limit, source, slowest, slowest_seconds, samples)


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
