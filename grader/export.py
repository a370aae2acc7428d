"""Writing specs out: an Exercise (or a plain dict) as YAML in the spec format, reading like a hand-written
one. The bundles `grader export` writes are the platforms' (grader/platforms/: the student's own in
student/), which write their specs with this."""

from __future__ import annotations

import math
from dataclasses import fields
from pathlib import Path

import yaml

from grader.forms import form_of
from grader.kinds import kind_of
from grader.forms.given import Generated
from grader.model import MISSING, CalibrationRule, CheckerSpec, Exercise, Limits, Rule, Test

KEY_ORDER = ("title", "kind", "entry", "prelude", "test_setup", "handin_files", "hidden_tests", "statement", "snippet", "starter", "hints", "limits",
             "calibration", "checker", "require", "forbid", "quality", "tests")


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
    if exercise.quality is not None:  # graded wherever the bundle grades: Gradescope, a student's own check
        from grader.quality_spec import quality_entry

        spec["quality"] = quality_entry(exercise.quality)
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
