"""A course folder: exercises/*.yaml with reference/ beside it; finds and loads exercises by id.

Which course a command works on: `--exercises DIR` when given; else the nearest course from the current
folder up (a folder holding COURSE_FILE, or one holding exercises/ with reference/ beside it); else
$GRADER_EXERCISES; else the course bundled with grader (inside the package when installed from a wheel).

A loaded exercise is kept as a pickle keyed by the spec's bytes, its path and the loader's own source, so
`grader check` skips importing and running the YAML parser while the spec is unchanged. A spec with
problems is never kept: its errors are reported at every load."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path

from grader.cache import cache_dir, key_hash, read_pickle, write_pickle
from grader.calibration import with_calibrated_limits
from grader.errors import SpecError, UsageError
from grader.model import Exercise
from grader.records import record

_PACKAGE = Path(__file__).resolve().parent
# A wheel carries the course inside the package (pyproject.toml force-includes it); a checkout has it beside.
BUNDLED_EXERCISES = next((p for p in (_PACKAGE / "_bundled" / "exercises", _PACKAGE.parent / "exercises")
                          if p.is_dir()), _PACKAGE.parent / "exercises")
COURSE_FILE = "grader-course.yaml"  # marks a course's root; its optional `exercises:` names the specs' folder
EXERCISES_VARIABLE = "GRADER_EXERCISES"
STUDENT_BUNDLE_MARKER = ".student-bundle"  # written by `grader export --student` into the exercises folder
# The modules whose code decides what a spec loads as: a change to any of them is a new key.
_LOADER_SOURCES = ("spec.py", "checker_spec.py", "params_spec.py", "feedback_spec.py", "model.py", "checkers/__init__.py", "errors.py",
                   "forms/__init__.py", "forms/base.py", "forms/given.py", "forms/raises.py", "forms/steps.py",
                   "forms/program_io.py", "limits.py", "quality_spec.py", "quality/data.py", "staff_spec.py", "limits_spec.py", "search_spec.py", "params_data.py", "search_data.py")


@record
class Course:
    exercises_dir: Path
    fallback: str = ""  # how a course was chosen when none was here: "$GRADER_EXERCISES", "the bundled course"

    @classmethod
    def at(cls, folder: str | Path | None, *, cwd: Path | None = None,
           environ: Mapping[str, str] | None = None) -> Course:
        """The course in `folder` (an exercises folder) when given, else the one `find_course` finds."""
        path, fallback = (Path(folder), "") if folder is not None else find_course(cwd, environ)
        if not path.is_dir():
            raise UsageError(f"no exercises folder at {path}")
        if (path / COURSE_FILE).is_file():  # the course's root given: its exercises, not its course file
            path = _configured_exercises(path / COURSE_FILE)
        elif (path / "exercises").is_dir() and not any(path.glob("*.yaml")):
            path = path / "exercises"
        return cls(path.resolve(), fallback)

    @property
    def which(self) -> str:
        """A line saying which course a command used when none was in the folder it ran in; else ""."""
        if not self.fallback:
            return ""
        return (f"no course in {Path.cwd()} or above it ({COURSE_FILE}, or exercises/ beside reference/): "
                f"using {self.fallback} at {self.exercises_dir} (--exercises DIR chooses one)")

    @property
    def note(self) -> str:
        """`which` in one short line, for a command that goes on to work (an error says it in full); else ""."""
        if not self.fallback:
            return ""
        return f"course: {self.fallback} (none here or above; --exercises DIR picks one)"

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
            which = f"\n{self.which}" if self.which else ""
            raise UsageError(f"no exercise '{exercise_id}' in {self.exercises_dir}{hint}{which}")
        return path

    def load(self, exercise_id: str) -> Exercise:
        """The exercise as grading uses it: the CPU limits the course's calibration gives (written by
        `grader validate`; the one place they are applied), the spec's limits otherwise."""
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
        exercises, problems = self.load_valid(ids, as_written=as_written)
        if problems:
            raise SpecError(problems)
        return exercises

    def load_valid(self, ids: list[str] | None = None, *,
                   as_written: bool = False) -> tuple[list[Exercise], list[str]]:
        """The exercises that load, and the problems (file:line:col) of those that do not: one broken spec
        does not keep a class from the rest of the course."""
        load = self.load_as_written if as_written else self.load
        exercises, problems = [], []
        for exercise_id in ids or self.ids():
            try:
                exercises.append(load(exercise_id))
            except SpecError as error:
                problems += error.problems
        return exercises, problems

    def private_paths(self, *extra: Path) -> tuple[Path, ...]:
        """Folders a submission must never see: specs, references, the expected-value cache, and `extra`."""
        return (self.exercises_dir, self.reference_root, cache_dir(), *extra)


def find_exercises(cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """The exercises folder of the course a command run in `cwd` works on (see the module's docstring)."""
    return find_course(cwd, environ)[0]


def find_course(cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> tuple[Path, str]:
    """The exercises folder `find_exercises` gives, and, when no course was in `cwd` or above, which
    fallback gave it ("" when one was)."""
    environ = os.environ if environ is None else environ
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / COURSE_FILE).is_file():
            return _configured_exercises(folder / COURSE_FILE), ""
        if (folder / "exercises").is_dir() and (folder / "reference").is_dir():
            return folder / "exercises", ""
    if environ.get(EXERCISES_VARIABLE):
        return Path(environ[EXERCISES_VARIABLE]), f"${EXERCISES_VARIABLE}"
    return BUNDLED_EXERCISES, "the grader's bundled course"


def _configured_exercises(config: Path) -> Path:
    """The exercises folder a COURSE_FILE names (`exercises: DIR`, relative to it; default exercises/)."""
    import yaml  # only for a course that has the file

    try:
        settings = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as error:
        raise UsageError(f"{config}: cannot read the course file: {error}") from None
    if not isinstance(settings, dict) or not isinstance(settings.get("exercises", "exercises"), str):
        raise UsageError(f"{config}: a course file is a mapping such as `exercises: exercises`")
    return config.parent / settings.get("exercises", "exercises")


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
    write_pickle(cached, exercise)
    return exercise


@functools.cache  # read once per process, however many specs it loads
def _loader_source() -> bytes:
    here = Path(__file__).parent
    return b"".join((here / name).read_bytes() for name in _LOADER_SOURCES)
