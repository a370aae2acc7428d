"""A course folder: exercises/*.yaml with reference/ beside it; finds and loads exercises by id."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.calibration import with_calibrated_limits
from grader.errors import SpecError, UsageError
from grader.cache import cache_dir, load_exercise
from grader.model import Exercise

BUNDLED_EXERCISES = Path(__file__).resolve().parent.parent / "exercises"
STUDENT_BUNDLE_MARKER = ".student-bundle"  # written by `grader export --student` into the exercises folder


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
