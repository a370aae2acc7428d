"""The job record: one hand-in of one exercise for a worker to grade, the grading it comes back with, and
how an exercise travels with it (packed once, its expected answers beside it, so a worker needs no reference)."""

from __future__ import annotations

import functools
import hashlib
import pickle
from pathlib import Path

from grader.errors import SpecError, SpecProblem
from grader.expected import ExpectationError, expected_values
from grader.grading import GradingRequest, Pace, Reader
from grader.handins.base import Handin
from grader.model import Exercise, Outcome, Report, Verdict
from grader.records import record


@record
class GradingKey:
    """What a grading depends on, and nothing else: identical submissions share one grading."""

    submission: str  # sha256 of the text, or "missing", or "refused:..." / "unreadable:..." digests
    exercise: str  # sha256 of the spec and its expected values
    grader: str  # the grader's version
    run_all: bool  # kept for the store's key: a batch runs every test, whatever --all says


@record
class Job:
    key: GradingKey
    packed_exercise: bytes  # pack(exercise, expected): its expected answers with it, so workers need no reference
    label: str  # student/file, as reports show it
    text: Handin  # what was handed in, read in the main process: the worker reads no student file
    private_paths: tuple[Path, ...]
    submission: int | None = None  # the server's submission number; None in a batch. Handed back untouched.
    tries: int = 0  # tries already spent on it before it was submitted (a server restarted while grading it)

    @property
    def exercise(self) -> Exercise:
        return _unpack(self.packed_exercise)[0]

    @property
    def expected(self) -> dict[str, object]:
        return _unpack(self.packed_exercise)[1]


@record
class Graded:
    key: GradingKey
    report: Report
    cpu_seconds: float  # CPU of the sandboxed processes, measured by the kernel (RUSAGE_CHILDREN)
    wall_seconds: float
    worker: str
    grader_cpu_seconds: float = 0.0  # the worker's own CPU for it: checks, sandbox set-up, reading results


@record
class Done:
    """A job's end, as a pool hands it back: its grading, or, when every try was lost (its worker died),
    every test a grader error and `failure` saying why."""

    job: Job
    graded: Graded
    failure: str | None = None


def pack(exercise: Exercise, expected: dict[str, object]) -> bytes:
    """An exercise and its expected answers as a job carries them: pickled once for all its jobs, not once
    per job sent (an exercise with its expected boards is ~50 KB and ~1 ms to pickle and unpickle)."""
    return pickle.dumps((exercise, expected), protocol=pickle.HIGHEST_PROTOCOL)


@functools.lru_cache(maxsize=32)
def _unpack(packed: bytes) -> tuple[Exercise, dict[str, object]]:
    unpacked: tuple[Exercise, dict[str, object]] = pickle.loads(packed)
    return unpacked


def job_request(label: str, private_paths: tuple[Path, ...] = ()) -> GradingRequest:
    """What a job asks of `grade`: a grade (every test runs) that staff read."""
    return GradingRequest(Pace.EVERY_TEST, Reader.STAFF, private_paths=private_paths, label=label)


def uniform_report(exercise: Exercise, label: str, verdict: Verdict, feedback: str) -> Report:
    """Every test with the same verdict: a missing file, a refused one, a worker that died."""
    outcomes = tuple(Outcome(test=t.name, verdict=verdict, points=0.0, max_points=t.points, hidden=t.hidden,
                             big=t.big, feedback=feedback) for t in exercise.tests)
    if exercise.search is not None:  # its outcome too: the same maximum score as any other hand-in's
        search = exercise.search
        outcomes += (Outcome(test=search.name, verdict=verdict, points=0.0, max_points=search.points,
                             hidden=search.hidden, feedback=feedback),)
    return Report(exercise.id, label, outcomes)


def resolve(exercise: Exercise) -> tuple[Exercise, dict[str, object], str]:
    """The exercise, every test's expected answer (computed once here, in the main process, for every
    worker: the same values `grader check` compares with), and a digest of everything its grades depend on:
    the spec's text and those values."""
    try:
        values = expected_values(exercise)
    except ExpectationError as error:
        raise SpecError([SpecProblem(exercise.path, 1, 1, f"cannot grade {exercise.id}: {error}")]) from error
    # The salt: grades stored before program tests were compared with their reference's files and status
    # (an earlier path compared them with the text of an internal object) are graded again.
    digest = hashlib.sha256(b"compared-as-check:" + exercise.id.encode() + b"\0" + exercise.path.read_bytes())
    for test in exercise.tests:
        digest.update(b"\0" + canonical(values[test.name]).encode())
        # The limits in force, and whether calibration set them: a class graded under other limits (another
        # calibration) has other keys, so its results are graded again, never mixed with these.
        limits = test.limits
        digest.update(repr((limits.cpu, limits.wall_seconds, limits.memory, limits.output, limits.processes,
                            limits.open_files, limits.file_size, limits.cpu_written, bool(limits.cpu_source)))
                      .encode())
    if exercise.search is not None and exercise.search.name in values:  # its reference: another one, other grades
        digest.update(b"\0search\0" + canonical(values[exercise.search.name]).encode())
    return exercise, values, digest.hexdigest()


_PLAIN = (int, float, str, bool, type(None))


def canonical(value: object) -> str:
    """A text that is equal for equal values in every process (a set's order changes with the hash seed),
    and differs for values that differ anywhere (numpy's repr of a big array leaves its middle out)."""
    data = _data_canonical(value)
    if data is not None:
        return data
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}{{{','.join(sorted(canonical(v) for v in value))}}}"
    if isinstance(value, dict):
        return "dict{" + ",".join(sorted(f"{canonical(k)}:{canonical(v)}" for k, v in value.items())) + "}"
    if isinstance(value, (list, tuple)):
        if all(type(v) in _PLAIN for v in value):  # a long list of numbers: one repr made in C
            return f"{type(value).__name__}{list(value)!r}"
        return f"{type(value).__name__}[{','.join(canonical(v) for v in value)}]"
    return repr(value)


def _data_canonical(value: object) -> str | None:
    """A numpy array's or a pandas object's text by its every item: dtype, shape and a digest of its bytes."""
    module = type(value).__module__.partition(".")[0]
    if module == "numpy" and type(value).__name__ == "ndarray":
        array = value
        if array.dtype.kind == "O":  # type: ignore[attr-defined]
            return f"ndarray{array.shape}:" + canonical(array.tolist())  # type: ignore[attr-defined]
        import numpy

        digest = sha256(numpy.ascontiguousarray(array).tobytes())
        return f"ndarray[{array.dtype.str},{array.shape},{digest}]"  # type: ignore[attr-defined]
    if module == "pandas" and type(value).__name__ in ("Series", "DataFrame", "Index"):
        # Equal pandas objects pickle alike in one pandas version, which every worker of a batch shares.
        return f"pandas.{type(value).__name__}[{sha256(pickle.dumps(value, protocol=5))}]"
    return None


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
