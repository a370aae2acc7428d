"""Time limits from the accepted references: part of the course, the same wherever it is graded.

A test's CPU limit is max(floor, multiplier x the CPU time of its slowest accepted reference). Measuring
takes seconds, so it happens only in `grader validate` / `grader calibrate`, which write the result into the
course, beside the specs (`exercises/.calibration/<id>.json`): it is committed with the course and carried
by every bundle made from it, and `Course.load` applies it in every entry point. A calibration is kept
while what it measured is unchanged (the tests' calls, the accepted references, the rule); it is measured
again only when those change or on `--recalibrate`, never because another machine runs `validate`.

The machine's cache holds no limit. It holds one number: how fast this machine runs a fixed piece of
Python in the sandbox's interpreter. Where it is much slower than the machine that calibrated, each
calibrated limit is scaled by the measured factor, and the report says so.

A CPU limit written in the spec wins over calibration: on a test (`tests: - limits: {cpu: ...}`) for
that test, on the exercise (`limits: {cpu: ...}`) for every test. `calibration: {floor, multiplier}`
in the spec changes the rule for one exercise.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, replace
from pathlib import Path

from grader.cache import cache_dir, write_atomically
from grader.kinds import kind_of
from grader.kinds.base import accepted_references
from grader.errors import SpecError, SpecProblem
from grader.limits import BOUNDS, LimitError, checked, json_line
from grader.machine_speed import SPEED_VERSION, machine, python_version, speed
from grader.model import CalibrationRule, Exercise, Test
from grader.records import record

try:  # hashlib's BLAKE2 without hashlib's OpenSSL import: a check reads the course's keys
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

CALIBRATION_VERSION = 3  # 3: one calibration per exercise, in the course; 2: keyed by the CPU model
REPEATS = 3  # runs per reference and test, when more runs could still change the limit
MEASUREMENT_CEILING = 20.0  # s of CPU an accepted reference may use on one test while it is measured
CALIBRATIONS = ".calibration"
# A machine this many times slower than the one that calibrated gets limits scaled by the factor: below
# it, the noise of CPU time on a busy machine (up to 1.65x, research/sandbox.md 2.9) is the multiplier's job.
SLOWER = 2.0


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
    key: str = ""  # what the test runs (test_key): a test changed since is not calibrated


@record
class Calibration:
    exercise: str
    key: str  # the exercise's set-up and rule (setup_key): changed, the calibration is stale
    machine: str
    python: str
    settings: CalibrationRule
    tests: dict[str, TestTiming]
    measured_at: str = ""
    measure_seconds: float = 0.0  # wall time the measurement took
    fresh: bool = False  # measured just now rather than read from the course
    references: str = ""  # the accepted references' content (references_key); "" in a student bundle
    speed: float = 0.0  # CPU seconds of the speed probe on the machine that calibrated (0: unknown)
    speed_probe: str = ""  # which probe (SPEED_VERSION): another one's seconds compare with nothing

    def limit_of(self, test: str) -> float | None:
        timing = self.tests.get(test)
        return timing.limit if timing else None


# ---------------------------------------------------------------- what a calibration measured
def _digest(*parts: object) -> str:
    digest = blake2b(digest_size=16)
    for part in parts:
        digest.update(repr(part).encode() + b"\0")
    return digest.hexdigest()


def _content(reference: Path) -> list[object]:
    """What of a reference its timing depends on: a file's bytes, or every file of a folder with its name."""
    if not reference.is_dir():
        return [reference.name, reference.read_bytes()]
    return [reference.name, *((str(p.relative_to(reference)), p.read_bytes()) for p in sorted(reference.rglob("*"))
                              if p.is_file())]


def setup_key(exercise: Exercise) -> str:
    """What every test's timing depends on besides its own call: the kind, entry, set-up code, the rule."""
    return _digest(CALIBRATION_VERSION, exercise.kind, exercise.entry, exercise.prelude, exercise.test_setup,
                   exercise.calibration)


def test_key(test: Test) -> str:
    """What one test runs: the same in the course and in a student bundle made from it (a generated value
    by its generator and args, never the path of generators.py; a step by its code alone)."""
    given = tuple((name, (getattr(value, "generator"), getattr(value, "args")) if hasattr(value, "generator")
                   else value) for name, value in test.given)
    io = (test.io.args, test.io.files) if test.io is not None else None
    return _digest(test.name, test.call, test.stdin, test.compare, written_cpu(test), given, io,
                   tuple(step.code for step in test.steps))


def references_key(exercise: Exercise) -> str:
    return _digest(*(part for reference in accepted_references(exercise) for part in _content(reference)))


def calibration_key(exercise: Exercise) -> str:
    """Everything the course's calibration of `exercise` depends on (never the machine: a limit is the course's)."""
    return _digest(setup_key(exercise), references_key(exercise), *(test_key(t) for t in exercise.tests))


def written_cpu(test: Test) -> float | None:
    """The CPU limit the spec wrote for this test (on it or on its exercise), which calibration leaves alone."""
    return test.limits.cpu if test.limits.cpu_written else None


def course_file(exercise: Exercise) -> Path:
    """Where the course keeps its exercise's calibration, beside the spec: committed with the course and
    carried by the bundles made from it."""
    return exercise.path.parent / CALIBRATIONS / f"{exercise.id}.json"


def slower_by(calibration: Calibration) -> float:
    """How many times slower this machine is than the one that calibrated, when it is much slower; else 1."""
    if calibration.speed <= 0 or calibration.speed_probe != SPEED_VERSION:
        return 1.0
    here = speed()
    factor = here / calibration.speed if here > 0 else 1.0
    return math.ceil(factor * 10) / 10 if factor >= SLOWER else 1.0


# ---------------------------------------------------------------- reading and applying
def cached_calibration(exercise: Exercise) -> Calibration | None:
    """The course's calibration of this exercise, if it has one for the exercise's current set-up."""
    if not kind_of(exercise.kind).calibrated(exercise):
        return None
    calibration = read_course_calibration(exercise)
    if calibration is None or calibration.key != setup_key(exercise):
        return None
    if calibration.references and accepted_references(exercise) and \
            calibration.references != references_key(exercise):
        return None  # the references changed since: `grader validate` measures them again
    return calibration


STALE = "the default: the course's calibration measured other tests or references (grader validate measures again)"


def with_calibrated_limits(exercise: Exercise) -> Exercise:
    """The exercise with each test's CPU limit from the course's calibration; unchanged when it has none,
    and saying so when the one it has measured something else."""
    calibration = cached_calibration(exercise)
    if calibration is not None:
        return apply(exercise, calibration)
    if kind_of(exercise.kind).calibrated(exercise) and read_course_calibration(exercise) is not None:
        return replace(exercise, tests=tuple(_stale(test) for test in exercise.tests))
    return exercise


def _stale(test: Test) -> Test:
    return test if test.limits.cpu_written else replace(test, limits=replace(test.limits, cpu_source=STALE))


def apply(exercise: Exercise, calibration: Calibration) -> Exercise:
    """Each test with its calibrated CPU limit (scaled on a much slower machine), saying so: a report names
    the limit and where it came from."""
    if not any(_applies(test, calibration.tests.get(test.name)) for test in exercise.tests):
        return replace(exercise, tests=tuple(_stale(test) for test in exercise.tests))
    factor = slower_by(calibration)
    where = calibration.machine.split(" / ")[1] if calibration.machine.count(" / ") >= 1 else calibration.machine
    source = f"calibrated by the course on {where or 'an unknown machine'} at {calibration.measured_at or 'an unknown time'}"
    if factor > 1:
        source += f", x{factor:g}: this machine measured {factor:g} times slower"
    tests = tuple(_with_cpu(test, calibration.tests.get(test.name), source, factor) for test in exercise.tests)
    return replace(exercise, tests=tests)


def _applies(test: Test, timing: TestTiming | None) -> bool:
    return timing is not None and bool(timing.limit) and not test.limits.cpu_written and \
        (not timing.key or timing.key == test_key(test))


def _with_cpu(test: Test, timing: TestTiming | None, source: str, factor: float) -> Test:
    if timing is None or not _applies(test, timing):
        return test if test.limits.cpu_written else _stale(test)
    how = "the calibration floor, " if timing.source == "floor" else ""
    # Scaled on a much slower machine, still within the bound every CPU limit keeps.
    cpu = min(math.ceil(timing.limit * factor * 100) / 100, BOUNDS["cpu"].most)
    # The wall-clock backstop follows (Limits.wall_seconds is 3 x cpu + 2) unless the spec wrote one.
    return replace(test, limits=replace(test.limits, cpu=cpu, cpu_source=how + source))


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


def read_course_calibration(exercise: Exercise) -> Calibration | None:
    """The calibration the course keeps for `exercise`, whatever it was measured for; None without one."""
    path = course_file(exercise)
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        if not isinstance(data, dict) or data.pop("version", None) != CALIBRATION_VERSION:
            return None  # an older grader's per-machine file: `grader validate` writes the course's own
        tests = {name: TestTiming(**timing) for name, timing in data.pop("tests").items()}
        settings = CalibrationRule(**data.pop("settings"))
        calibration = Calibration(**data, settings=settings, tests=tests)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    _check_numbers(path, text, calibration)
    return calibration


def _check_numbers(path: Path, text: str, calibration: Calibration) -> None:
    """The numbers a calibration applies pass the limits' one check (grader/limits.py), as a spec's do: a
    file edited by hand or damaged is a spec error naming its key and line, never a NaN or negative limit."""
    numbers: list[tuple[tuple[str, ...], str, object]] = [
        (("tests", name, "limit"), "cpu", timing.limit) for name, timing in calibration.tests.items()]
    numbers += [(("settings", "floor"), "floor", calibration.settings.floor),
                (("settings", "multiplier"), "multiplier", calibration.settings.multiplier),
                (("speed",), "speed", calibration.speed)]
    problems = []
    for where, key, value in numbers:
        try:
            checked(key, value)
        except LimitError as error:
            problems.append(SpecProblem(path, json_line(text, where), 1, f"calibration: {'.'.join(where)} {error} "
                                        f"(correct it, or measure again: grader validate --recalibrate)"))
    if problems:
        raise SpecError(problems)


def calibration_data(calibration: Calibration, *, only: set[str] | None = None) -> dict[str, object]:
    """The course file's content; `only` these tests, with no reference named (a student bundle's copy)."""
    data: dict[str, object] = {"version": CALIBRATION_VERSION, **asdict(calibration)}
    data.pop("fresh")
    if only is not None:
        data["tests"] = {name: dict(timing, slowest_reference="", samples={})
                         for name, timing in data["tests"].items() if name in only}  # type: ignore[union-attr]
        data["references"] = ""
    return data


def _write(exercise: Exercise, calibration: Calibration) -> None:
    path = course_file(exercise)
    try:
        path.parent.mkdir(exist_ok=True)
        write_atomically(path, (json.dumps(calibration_data(calibration), indent=1) + "\n").encode())
    except OSError as error:
        raise CalibrationError(f"cannot write the course's calibration to {path} ({error.strerror or error}): "
                               f"its limits stay as they were") from None


# ---------------------------------------------------------------- measuring
def calibrate(exercise: Exercise, *, force: bool = False) -> Calibration | None:
    """The course's calibration of `exercise` (as written, not already calibrated): the one the course keeps
    while what it measured is unchanged, or measured now and written into the course. None for an exercise
    with nothing to time (a predict exercise)."""
    if not kind_of(exercise.kind).calibrated(exercise):
        return None
    settings = exercise.calibration
    references = accepted_references(exercise)
    if not references:
        raise CalibrationError(f"no accepted reference in {exercise.reference_dir / 'accepted'} to time the tests with")
    if not force:
        kept = cached_calibration(exercise)
        current = kept is not None and set(kept.tests) == {t.name for t in exercise.tests} and all(
            kept.tests[t.name].key == test_key(t) for t in exercise.tests)
        if kept is not None and current:
            return kept
    started = time.monotonic()
    samples: dict[str, dict[str, list[float]]] = {test.name: {} for test in exercise.tests}
    for reference in references:
        for name, runs in _measure(exercise, reference, settings).items():
            samples[name][reference.name] = runs
    calibration = Calibration(
        exercise=exercise.id, key=setup_key(exercise), machine=machine(), python=python_version(), settings=settings,
        tests={test.name: _timing(test, samples[test.name], settings) for test in exercise.tests},
        measured_at=time.strftime("%Y-%m-%d %H:%M:%S"), measure_seconds=round(time.monotonic() - started, 2),
        fresh=True, references=references_key(exercise), speed=speed(), speed_probe=SPEED_VERSION)
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
    return TestTiming(test.name, limit, source, slowest, slowest_seconds, samples, test_key(test))
