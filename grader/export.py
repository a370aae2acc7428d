"""Writing specs out: an Exercise (or a plain dict) as YAML in the spec format, and `grader export --student`,
the bundle students get: statements, starter code, hints and the visible tests with their expected values,
and the course's environment (its pinned packages, built by `grader env build`) when it has one; no hidden
test and no reference."""

from __future__ import annotations

import math
import shutil
from dataclasses import fields
from pathlib import Path

import yaml

from grader.checkers import CHECKERS, judge_lines, typed
from grader.checkers.arrays import from_spec, is_data
from grader.course import COURSE_FILE, STUDENT_BUNDLE_MARKER
from grader.errors import SpecError, UsageError
from grader.expected import ExpectationError, expected_values
from grader.forms import form_of
from grader.kinds import kind_of
from grader.forms.given import Generated
from grader.environment import Environment
from grader.model import MISSING, CalibrationRule, CheckerSpec, Exercise, Limits, Rule, Test
from grader.platforms.course_files import test_files
from grader.platforms.environment_files import BUILD, bundle_environment, environment_files
from grader.records import record
from grader.spec import load_exercise

KEY_ORDER = ("title", "kind", "entry", "prelude", "test_setup", "handin_files", "hidden_tests", "statement", "snippet", "starter", "hints", "limits",
             "calibration", "checker", "require", "forbid", "tests")


# ---------------------------------------------------------------- YAML that reads like a hand-written spec
class _SpecDumper(yaml.SafeDumper):
    """Block style for multi-line text (statements, code), keys in the order written."""


def _text(dumper: yaml.SafeDumper, text: str) -> yaml.Node:
    # The emitter falls back to quotes by itself when a block cannot hold the text (trailing spaces, tabs).
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


def _list(dumper: yaml.SafeDumper, items: list[object]) -> yaml.Node:
    # Short values on one line (["Q"], [1, 3, 0, 2]), quoted so that ".Q.." reads as text; long text (hints)
    # folded, one item per line.
    short = len(items) <= 20 and all(
        isinstance(item, (int, float, bool)) or item is None
        or (isinstance(item, str) and len(item) <= 40 and "\n" not in item) for item in items)
    nodes: list[yaml.Node] = []
    for item in items:
        if isinstance(item, str) and "\n" not in item:
            folded = not short and len(item) > 40
            nodes.append(yaml.ScalarNode("tag:yaml.org,2002:str", item, style=">" if folded else '"'))
        else:
            nodes.append(dumper.represent_data(item))
    return yaml.SequenceNode("tag:yaml.org,2002:seq", nodes, flow_style=short)


_SpecDumper.add_representer(str, _text)
_SpecDumper.add_representer(list, _list)


def spec_yaml(spec: dict[str, object]) -> str:
    ordered = {key: spec[key] for key in KEY_ORDER if key in spec and spec[key] not in ([], {}, "", None)}
    return yaml.dump(ordered, Dumper=_SpecDumper, sort_keys=False, allow_unicode=True, width=110)


def write_spec(spec: dict[str, object], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(spec_yaml(spec), encoding="utf-8")


def value_expect(value: object) -> dict[str, object]:
    """`expect: value` when YAML reads it back as the same value, type included; a numpy or pandas value as
    the mapping the array checkers read (checkers.arrays.to_spec); else `expect_literal`."""
    from grader.checkers.arrays import is_data, to_spec

    written = to_spec(value) if is_data(value) else None
    if written is not None:
        return {"expect": written}
    return {"expect": value} if _plain_yaml(value) else {"expect_literal": repr(value)}


def _plain_yaml(value: object) -> bool:
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return not math.isnan(value)
    if type(value) is list:
        return all(_plain_yaml(item) for item in value)
    if type(value) is dict:
        return all(isinstance(k, (str, int)) and not isinstance(k, bool) and _plain_yaml(v) for k, v in value.items())
    return False  # tuples, sets, bytes: only a Python literal keeps their type


# ---------------------------------------------------------------- Exercise -> spec
def exercise_spec(exercise: Exercise, tests: tuple[Test, ...], expected: dict[str, object]) -> dict[str, object]:
    """The spec of `exercise` with only `tests`, each carrying its expected value from `expected` (a test
    missing from it keeps no `expect`, so the reference or snippet supplies it)."""
    spec: dict[str, object] = {"title": exercise.title, "kind": str(exercise.kind)}
    if exercise.entry:
        spec["entry"] = exercise.entry
    for key in ("prelude", "test_setup", "statement", "snippet", "starter"):
        spec[key] = getattr(exercise, key)
    spec["hints"] = list(exercise.hints)
    spec["handin_files"] = list(exercise.handin_files)
    spec["limits"] = _limit_changes(exercise.limits, Limits())
    if exercise.calibration != CalibrationRule():
        spec["calibration"] = {f.name: getattr(exercise.calibration, f.name) for f in fields(CalibrationRule)}
    spec["require"] = [_rule(rule) for rule in exercise.require]
    spec["forbid"] = [_rule(rule) for rule in exercise.forbid]
    spec["tests"] = [_test(exercise, test, expected) for test in tests]
    return spec


def _test(exercise: Exercise, test: Test, expected: dict[str, object]) -> dict[str, object]:
    entry: dict[str, object] = {"name": test.name}
    if test.call is not None:
        entry["call"] = test.call
    kind = kind_of(exercise.kind)
    if test.stdin is not None:
        entry["stdin"] = test.stdin
    if test.compare != kind.default_compare:
        entry["compare"] = test.compare
    form_entry = form_of(test).spec_entry(test, expected.get(test.name, MISSING))
    if form_entry is not None:
        entry.update(form_entry)
    elif test.name in expected:
        value = expected[test.name]
        text_compare = test.compare == "output"
        if text_compare and test.checker.name == "output":
            value = str(value).rstrip("\n")  # the output checker ignores trailing blank lines: "2 4", not "2 4\n"
        entry.update({"expect": str(value)} if text_compare else value_expect(value))
    if test.given:
        entry["given"] = {name: {"generator": value.generator, "args": dict(value.args),
                                 **({"inside": True} if value.inside else {})}
                          if isinstance(value, Generated) else value for name, value in test.given}
    for key in ("feedback", "description"):
        if getattr(test, key):
            entry[key] = getattr(test, key)
    if test.feedback_by:
        entry["feedback"] = dict(test.feedback_by, **({"any": test.feedback} if test.feedback else {}))
    for flag in ("hidden", "big"):
        if getattr(test, flag):
            entry[flag] = True
    if test.points != 1:
        entry["points"] = test.points
    if test.checker.name == "custom":
        args = dict(test.checker.args)
        entry["checker"] = {"file": Path(str(args["file"])).name, "function": args["function"]}
    elif test.checker != CheckerSpec(test.compare) and test.form != "raises":
        entry["checker"] = (test.checker.name if not test.checker.args
                            else {"name": test.checker.name, "args": dict(test.checker.args)})
    entry["limits"] = _limit_changes(test.limits, exercise.limits)
    return {key: value for key, value in entry.items() if value != {}}


def _limit_changes(limits: Limits, base: Limits) -> dict[str, object]:
    return {f.name: getattr(limits, f.name) for f in fields(Limits)
            if f.name != "cpu_written" and getattr(limits, f.name) != getattr(base, f.name)}


def _rule(rule: Rule) -> object:
    return {"name": rule.name, "message": rule.message} if rule.message else rule.name


# ---------------------------------------------------------------- the student bundle
@record
class Bundle:
    root: Path
    exercises_dir: Path
    written: list[tuple[str, int, int]]  # (id, visible tests, hidden tests left out)
    skipped: list[str]  # exercises with no visible test: nothing a student could check

    def lines(self) -> list[str]:
        lines = [f"{exercise_id}: {visible} visible tests written, {hidden} hidden tests left out"
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
    (root / "README.md").write_text(_readme(exercises, written, environment), encoding="utf-8")
    return Bundle(root, folder, written, skipped)


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
            environment: Environment | None = None) -> str:
    titles = {exercise.id: exercise.title for exercise in exercises}
    rows = "\n".join(f"| `{exercise_id}` | {titles[exercise_id]} | {visible} | {hidden} |"
                     for exercise_id, visible, hidden in written)
    first = "" if environment is None else f"""
These exercises import {', '.join(environment.packages)} (pinned in `requirements.txt`). Install the
grader with its `data` extra (it compares arrays and frames with numpy and pandas of its own), then build
the packages once, in this folder, before the first check (a check never downloads; without it, it says how):

```bash
pip install 'PATH[data]' -c requirements.txt   # PATH: the grader's wheel or checkout your course gives you
{BUILD}
```
"""
    return f"""# Exercises
{first}
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
