"""`grader export --student`: the bundle students get. Statements, starter code, hints and the visible tests
with their expected values written out (the bundle has no reference to compute them), and the course's
environment (its pinned packages, built by `grader env build`) when it has one; no hidden test and no
reference. `grader check` run in it grades the visible tests; GitHub Classroom's template holds it too."""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.checkers import CHECKERS, judge_lines, typed
from grader.checkers.arrays import from_spec, is_data
from grader.course import COURSE_FILE, STUDENT_BUNDLE_MARKER
from grader.environment import Environment
from grader.errors import SpecError, UsageError
from grader.expected import ExpectationError, expected_values
from grader.export import exercise_spec, write_spec
from grader.kinds import kind_of
from grader.model import MISSING, Exercise, Test
from grader.platforms.shared.course_files import test_files
from grader.platforms.shared.environment_files import BUILD, bundle_environment, environment_files
from grader.platforms.shared.folder import write_wheel
from grader.records import record
from grader.spec import load_exercise
from grader.version import DISTRIBUTION
from grader.words import count

@record
class Bundle:
    root: Path
    exercises_dir: Path
    written: list[tuple[str, int, int]]  # (id, visible tests, hidden tests left out)
    skipped: list[str]  # exercises with no visible test: nothing a student could check

    def lines(self) -> list[str]:
        lines = [f"{exercise_id}: {count(visible, 'visible test')} written, {count(hidden, 'hidden test')} left out"
                 for exercise_id, visible, hidden in self.written]
        lines += [f"{exercise_id}: left out, it has no visible test" for exercise_id in self.skipped]
        return lines + [f"wrote {self.exercises_dir} and {self.root / 'README.md'}"]


def export_student_bundle(exercises: list[Exercise], root: Path, *, force: bool = False) -> Bundle:
    """Write root/exercises/<id>.yaml (visible tests only, their expected values written out, since the
    bundle has no reference to compute them), the marker that makes `grader check` grade visible tests
    only, and a README. A predict exercise keeps no expected answer: `grader check` runs its snippet."""
    if root.exists() and any(root.iterdir()) and not force:
        raise UsageError(f"{root} is not empty; pass --force to write into it")
    folder = root / "exercises"
    folder.mkdir(parents=True, exist_ok=True)
    written, skipped = [], []
    for exercise in exercises:
        visible = tuple(test for test in exercise.tests if not test.hidden)
        if not visible:
            skipped.append(exercise.id)
            continue
        try:
            expected = expected_values(exercise) if kind_of(exercise.kind).exported_expectations(exercise) else {}
        except ExpectationError as error:
            raise UsageError(f"cannot export {exercise.id}: {error}") from None
        path = folder / f"{exercise.id}.yaml"
        _copy_course_files(visible, folder)
        spec = exercise_spec(exercise, visible, {t.name: expected[t.name] for t in visible if t.name in expected})
        left_out = len(exercise.tests) - len(visible) + exercise.hidden_tests
        if left_out:
            spec["hidden_tests"] = left_out  # `grader show` counts them
        write_spec(spec, path)
        _check_round_trip(path, exercise, visible, expected)
        written.append((exercise.id, len(visible), len(exercise.tests) - len(visible)))
    (folder / STUDENT_BUNDLE_MARKER).write_text("Written by `grader export --student`: hidden tests run at "
                                                "grading time, not here.\n")
    _copy_calibrations(exercises, [exercise_id for exercise_id, _, _ in written], folder)
    environment = bundle_environment(exercises)
    # A course of its own: `grader check` run in it (or below) grades with it, never with another course.
    (root / COURSE_FILE).write_text(STUDENT_COURSE_TEXT, encoding="utf-8")
    for name, data in environment_files(exercises).items():  # the packages the exercises import, to build first
        (root / name).write_bytes(data)
    wheel = write_wheel(root / WHEELS)  # what a student installs the grader from, with no index to know it
    (root / "README.md").write_text(_readme(exercises, written, environment, wheel), encoding="utf-8")
    return Bundle(root, folder, written, skipped)


WHEELS = "wheels"  # the bundle's folder of wheels: the grader's, and any its dependencies the course adds


STUDENT_COURSE_TEXT = """\
# Written by `grader export --student`: this folder is a course. `grader` run in it, or below it, uses it.
exercises: exercises
"""


def _copy_calibrations(exercises: list[Exercise], ids: list[str], folder: Path) -> None:
    """Each exercise's calibrated limits, as the course has them: a check here uses the limits the grade
    will. Only the visible tests' limits, and no reference named."""
    import json

    from grader.calibration import CALIBRATIONS, cached_calibration, calibration_data

    for exercise in exercises:
        calibration = cached_calibration(exercise) if exercise.id in ids else None
        if calibration is None:
            continue
        visible = {test.name for test in exercise.tests if not test.hidden}
        (folder / CALIBRATIONS).mkdir(exist_ok=True)
        (folder / CALIBRATIONS / f"{exercise.id}.json").write_text(
            json.dumps(calibration_data(calibration, only=visible), indent=1) + "\n", encoding="utf-8")


def _copy_course_files(tests: tuple[Test, ...], folder: Path) -> None:
    """The course's own code the visible tests name (a checker file, generators.py), beside the bundle's specs."""
    for test in tests:
        for source in test_files(test):
            if not source.is_file():
                raise UsageError(f"test '{test.name}' names {source.name}, which is not in {source.parent}")
            shutil.copyfile(source, folder / source.name)


def _check_round_trip(path: Path, exercise: Exercise, visible: tuple[Test, ...], expected: dict[str, object]) -> None:
    """The bundle's spec must load and mean the same tests: anything else is a bug here, not a student's."""
    try:
        loaded = load_exercise(path)
    except SpecError as error:
        raise RuntimeError(f"the exported spec {path} does not load: {error}") from None
    for original, copy in zip(visible, loaded.tests):
        judged = "" if original.form == "raises" else original.checker.label  # an exception has no checker
        same = (original.name, original.call, original.stdin, original.compare, judged, original.form, original.raises) \
            == (copy.name, copy.call, copy.stdin, copy.compare, judged and copy.checker.label, copy.form, copy.raises)
        want = expected.get(original.name, MISSING)
        if want is not MISSING and copy.expect is not MISSING and original.form == "call":
            text = isinstance(copy.expect, str) and original.compare == "output"
            if is_data(want):  # written as a mapping: read back as the checkers read it, compared exactly
                same = same and CHECKERS["array"](want, from_spec(copy.expect)).passed
            else:
                same = same and (judge_lines(str(want)) == judge_lines(copy.expect) if text  # type: ignore[arg-type]
                                 else typed(want) == typed(copy.expect))
        if not same:
            raise RuntimeError(f"the exported spec {path} changes test '{original.name}'")


def _readme(exercises: list[Exercise], written: list[tuple[str, int, int]],
            environment: Environment | None = None, wheel: str = "") -> str:
    titles = {exercise.id: exercise.title for exercise in exercises}
    rows = "\n".join(f"| `{exercise_id}` | {titles[exercise_id]} | {visible} | {hidden} |"
                     for exercise_id, visible, hidden in written)
    first = "" if environment is None else f"""
These exercises import {', '.join(environment.packages)} (pinned in `requirements.txt`). Install the
grader with its `data` extra (it compares arrays and frames with numpy and pandas of its own), then build
the packages once, in this folder, before the first check (a check never downloads; without it, it says how):

```bash
pip install '{WHEELS}/{wheel}[data]' -c requirements.txt
{BUILD}
```
"""
    install = f"""
## Install the grader (once)

The grader comes with these exercises, in `{WHEELS}/{wheel}`. In this folder:

```bash
python3 -m venv .venv && . .venv/bin/activate    # Windows: .venv\\Scripts\\activate
pip install --find-links {WHEELS} {DISTRIBUTION}
```

pip takes the grader from `{WHEELS}/` and its few dependencies (PyYAML, rich, Jinja2...) from the package
index. With no network, put their wheels in `{WHEELS}/` too (on a machine that has one:
`pip download --dest {WHEELS} {WHEELS}/{wheel}`), then `pip install --no-index --find-links {WHEELS} {DISTRIBUTION}`.
""" if wheel else ""
    return f"""# Exercises
{install}{first}
| id | title | visible tests | hidden tests (run at grading time) |
| --- | --- | --- | --- |
{rows}

```bash
grader list                 # run in this folder (a course: grader-course.yaml) or below it
grader show ID              # the statement, the visible tests and the time limits
grader start ID             # writes ID.py from the starter code
grader hint ID              # the next hint
grader check ID ID.py       # runs the visible tests under the course's limits; hidden tests run at grading time
```
"""
