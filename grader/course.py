"""A course folder: exercises/*.yaml with reference/ beside it; finds and loads exercises by id.

A loaded exercise is kept as a pickle keyed by the spec's bytes, its path and the loader's own source, so
`grader check` skips importing and running the YAML parser while the spec is unchanged. A spec with
problems is never kept: its errors are reported at every load."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from grader.cache import cache_dir, key_hash, read_pickle, write_pickle
from grader.calibration import with_calibrated_limits
from grader.errors import SpecError, UsageError
from grader.model import Exercise

BUNDLED_EXERCISES = Path(__file__).resolve().parent.parent / "exercises"
STUDENT_BUNDLE_MARKER = ".student-bundle"  # written by `grader export --student` into the exercises folder
# The modules whose code decides what a spec loads as: a change to any of them is a new key.
_LOADER_SOURCES = ("spec.py", "model.py", "checkers/__init__.py", "errors.py", "forms/__init__.py", "forms/base.py",
                   "forms/given.py", "forms/raises.py", "forms/steps.py", "forms/program_io.py")


@dataclass(frozen=True)
class Course:
    exercises_dir: Path

    @classmethod
    def at(cls, folder: str | Path | None) -> Course:
        path = Path(folder) if folder is not None else BUNDLED_EXERCISES
        if not path.is_dir():
            raise UsageError(f"no exercises folder at {path}")
        return cls(path.resolve())

    @property
    def reference_root(self) -> Path:
        return self.exercises_dir.parent / "reference"

    def ids(self) -> list[str]:
        return sorted(p.stem for p in self.exercises_dir.glob("*.yaml"))

    def path_of(self, exercise_id: str) -> Path:
        path = self.exercises_dir / f"{exercise_id}.yaml"
        if not path.is_file():
            import difflib

            close = difflib.get_close_matches(exercise_id, self.ids(), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f"; `grader list` shows the {len(self.ids())} there are"
            raise UsageError(f"no exercise '{exercise_id}' in {self.exercises_dir}{hint}")
        return path

    def load(self, exercise_id: str) -> Exercise:
        """The exercise as grading uses it: the CPU limits calibrated on this machine by `grader validate`
        when it has measured them (the one place they are applied), the spec's limits otherwise."""
        return with_calibrated_limits(self.load_as_written(exercise_id))

    def load_as_written(self, exercise_id: str) -> Exercise:
        """The exercise exactly as its spec says, limits included."""
        return load_exercise(self.path_of(exercise_id))

    @property
    def is_student_bundle(self) -> bool:
        """A bundle from `grader export --student`: its hidden tests are not there, they run at grading time."""
        return (self.exercises_dir / STUDENT_BUNDLE_MARKER).exists()

    def load_all(self, ids: list[str] | None = None, *, as_written: bool = False) -> list[Exercise]:
        """Every exercise (or those named), reporting the problems of all broken specs together; calibrated
        as `load` gives them, or `as_written`."""
        load = self.load_as_written if as_written else self.load
        exercises, problems = [], []
        for exercise_id in ids or self.ids():
            try:
                exercises.append(load(exercise_id))
            except SpecError as error:
                problems += error.problems
        if problems:
            raise SpecError(problems)
        return exercises

    def private_paths(self, *extra: Path) -> tuple[Path, ...]:
        """Folders a submission must never see: specs, references, the expected-value cache, and `extra`."""
        return (self.exercises_dir, self.reference_root, cache_dir(), *extra)


def load_exercise(path: Path) -> Exercise:
    """The exercise in the spec at `path`, as written, from the cache when its content was loaded before."""
    digest = key_hash(_loader_source() + str(path.resolve()).encode() + b"\0")
    try:
        digest.update(path.read_bytes())
    except OSError:
        pass  # the loader reports it
    cached = cache_dir() / "exercises" / f"{digest.hexdigest()}.pickle"
    exercise = read_pickle(cached)
    if isinstance(exercise, Exercise):
        return exercise
    from grader.spec import load_exercise as load_spec  # YAML only when the cache cannot answer

    exercise = load_spec(path)
    cached.parent.mkdir(mode=0o700, exist_ok=True)
    write_pickle(cached, exercise)
    return exercise


@functools.cache  # read once per process, however many specs it loads
def _loader_source() -> bytes:
    here = Path(__file__).parent
    return b"".join((here / name).read_bytes() for name in _LOADER_SOURCES)
