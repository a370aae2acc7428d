"""Load exercise specs from YAML, keeping every node's position so each problem reads file:line:col."""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import fields
from pathlib import Path
from typing import TypeVar

import yaml

from grader.checker_spec import read_checker
from grader.errors import SpecError, SpecProblem
from grader.feedback_spec import read_feedback
from grader.search_spec import read_search
from grader.forms import COMMON_KEYS, FORMS, TestForm, form_keys
from grader.forms.given import read_given
from grader.kinds import KINDS, SubmissionKind
from grader.limits import LimitError, checked, what
from grader.limits_spec import read_limits
from grader.params_spec import read_params
from grader.model import MISSING, CalibrationRule, CheckerSpec, Exercise, Limits, Rule, Test
from grader.quality_spec import read_quality
from grader.staff_spec import read_mutants, read_rubric

EXERCISE_KEYS = ("title", "kind", "entry", "statement", "starter", "hints", "prelude", "test_setup", "handin_files", "hidden_tests", "snippet", "limits",
                 "checker", "require", "forbid", "tests",
                 "calibration", "mutants", "rubric", "quality", "params", "search", *(key for kind in KINDS.values() for key in kind.own_keys))
TEST_KEYS = ("name", "call", "stdin", "compare", "expect", "expect_literal", "hidden", "big", "points",
             "checker", "limits", *COMMON_KEYS, *form_keys())
CALIBRATION_KEYS = tuple(f.name for f in fields(CalibrationRule))
ID_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
constructor = yaml.SafeLoader("")
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml (C) when PyYAML was built with it
T = TypeVar("T")


class _Reader:
    """Builds the model from YAML nodes, collecting every problem instead of stopping at the first."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[SpecProblem] = []

    def problem(self, node: yaml.Node, message: str) -> None:
        self.problems.append(SpecProblem(self.path, node.start_mark.line + 1, node.start_mark.column + 1, message))

    def mapping(self, node: yaml.Node, allowed: tuple[str, ...], where: str) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            self.problem(node, f"{where} must be a mapping of keys to values")
            return {}
        result: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else f"; known keys: {', '.join(allowed)}"
                self.problem(key_node, f"unknown key '{key}' in {where}{hint}")
            elif key in result:
                self.problem(key_node, f"key '{key}' appears twice in {where}")
            else:
                result[key] = value_node
        return result

    def value(self, node: yaml.Node) -> object:
        return constructor.construct_object(node, deep=True)

    def text(self, node: yaml.Node | None, where: str, default: str = "") -> str:
        if node is None:
            return default
        if not isinstance(node, yaml.ScalarNode) or node.tag == "tag:yaml.org,2002:null":
            self.problem(node, f"{where} must be text")
            return default
        return str(node.value)

    def typed(self, node: yaml.Node | None, kind: type[T], where: str, default: T, check: str = "") -> T:
        if node is None:
            return default
        value = self.value(node) if isinstance(node, yaml.ScalarNode) else None
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            self.problem(node, f"{where} must be {check or kind.__name__}, not {node.value!r}")
            return default
        return value

    def text_list(self, node: yaml.Node | None, where: str) -> tuple[str, ...]:
        if node is None:
            return ()
        if not isinstance(node, yaml.SequenceNode):
            self.problem(node, f"{where} must be a list of strings")
            return ()
        return tuple(self.text(item, f"each item of {where}") for item in node.value)


def load_exercise(path: Path) -> Exercise:
    """Read one spec; raise SpecError listing every problem in the file."""
    reader = _Reader(path)
    try:
        text = path.read_text(encoding="utf-8")
        root = yaml.compose(text, Loader=LOADER)
    except UnicodeDecodeError as error:
        raise SpecError([SpecProblem(path, 1, 1, f"the file is not UTF-8 text ({error.reason})")]) from None
    except yaml.MarkedYAMLError as error:
        from grader.yaml_syntax import syntax_problem

        raise SpecError([syntax_problem(path, text, error)]) from None
    if root is None:
        raise SpecError([SpecProblem(path, 1, 1, "the file is empty; an exercise needs title, kind, statement and tests")])
    exercise = _exercise(reader, root, path)
    if reader.problems or exercise is None:
        raise SpecError(sorted(reader.problems, key=lambda p: (p.line, p.column)))
    return exercise


def _exercise(reader: _Reader, root: yaml.Node, path: Path) -> Exercise | None:
    if not ID_PATTERN.match(path.stem):
        reader.problem(root, f"the file name '{path.stem}' is the exercise id: use lower-case letters, digits and '-'")
    keys = reader.mapping(root, EXERCISE_KEYS, "the exercise")
    if not isinstance(root, yaml.MappingNode):
        return None
    for required in ("title", "kind", "statement", "tests"):
        if required not in keys:
            reader.problem(root, f"missing key '{required}': every exercise needs {required}")
    kind_name = reader.text(keys.get("kind"), "kind", "function")
    kind = KINDS.get(kind_name)
    if kind is None:
        reader.problem(keys["kind"], f"unknown kind '{kind_name}'; known kinds: {', '.join(KINDS)}")
        kind = KINDS["function"]
    entry = reader.text(keys.get("entry"), "entry") or None
    if entry is not None and not entry.isidentifier():
        reader.problem(keys["entry"], f"entry '{entry}' is not a Python name")
    kind.check_exercise(reader, keys, root, entry)
    for key in sorted((keys.keys() - set(kind.own_keys)) & {k for other in KINDS.values() for k in other.own_keys}):
        reader.problem(keys[key], f"'{key}' is for another kind of exercise; this is a {kind.name} exercise")
    for name in ("prelude", "test_setup", "snippet", "starter"):
        if name in keys:
            _check_code(reader, keys[name], name)
    limits = read_limits(reader, keys.get("limits"), Limits(), "limits")
    checker = read_checker(reader, keys.get("checker"), CheckerSpec(kind.default_compare))
    tests = _tests(reader, keys.get("tests"), kind, limits, checker if "checker" in keys else None)
    return Exercise(
        id=path.stem,
        title=reader.text(keys.get("title"), "title"),
        kind=kind.name,
        statement=reader.text(keys.get("statement"), "statement"),
        tests=tests,
        path=path,
        entry=entry,
        starter=reader.text(keys.get("starter"), "starter"),
        hints=reader.text_list(keys.get("hints"), "hints"),
        prelude=reader.text(keys.get("prelude"), "prelude"),
        test_setup=reader.text(keys.get("test_setup"), "test_setup"),
        handin_files=_handin_files(reader, keys.get("handin_files")),
        hidden_tests=reader.typed(keys.get("hidden_tests"), int, "hidden_tests", 0, "a whole number"),
        snippet=reader.text(keys.get("snippet"), "snippet"),
        limits=limits,
        require=_rules(reader, keys.get("require"), "require"),
        forbid=_rules(reader, keys.get("forbid"), "forbid"),
        calibration=_calibration(reader, keys.get("calibration")),
        mutants=read_mutants(reader, keys.get("mutants")),
        rubric=read_rubric(reader, keys.get("rubric")),
        quality=read_quality(reader, keys.get("quality"), kind.runs_code),
        params=read_params(reader, keys.get("params"), path),
        search=read_search(reader, keys.get("search"), kind.name, entry, checker, limits),
    )


def _handin_files(reader: _Reader, node: yaml.Node | None) -> tuple[str, ...]:
    """`handin_files: [helpers.py, data/board.py]`: the Python files a folder hand-in holds beside its entry."""
    names = reader.text_list(node, "handin_files")
    for name in names:
        if not name.endswith(".py") or name.startswith("/") or ".." in name.split("/"):
            reader.problem(node, f"handin_files: {name!r} is not a Python file's path inside the hand-in "  # type: ignore[arg-type]
                                 f"(e.g. helpers.py, or pieces/board.py)")
    return names


def _check_code(reader: _Reader, node: yaml.Node, where: str) -> None:
    try:
        ast.parse(reader.text(node, where))
    except SyntaxError as error:
        reader.problem(node, f"{where} is not valid Python: {error.msg} (line {error.lineno} of the code)")


def _calibration(reader: _Reader, node: yaml.Node | None) -> CalibrationRule:
    if node is None:
        return CalibrationRule()
    if not isinstance(node, yaml.MappingNode):
        reader.problem(node, "calibration must be a mapping, e.g. {floor: 1.0, multiplier: 3}")
        return CalibrationRule()
    changes: dict[str, float] = {}
    for key, value_node in reader.mapping(node, CALIBRATION_KEYS, "calibration").items():
        value = reader.typed(value_node, float, f"calibration: {key}", None, what(key))
        if value is None:
            continue
        try:
            changes[key] = checked(key, value)
        except LimitError as error:
            reader.problem(value_node, f"calibration: {key} {error}")
    return CalibrationRule(**changes)


def _rules(reader: _Reader, node: yaml.Node | None, where: str) -> tuple[Rule, ...]:
    if node is None:
        return ()
    if not isinstance(node, yaml.SequenceNode):
        reader.problem(node, f"{where} must be a list of names, or of {{name: ..., message: ...}}")
        return ()
    rules = []
    for item in node.value:
        if isinstance(item, yaml.MappingNode):
            keys = reader.mapping(item, ("name", "message"), f"a {where} rule")
            if "name" not in keys:
                reader.problem(item, f"a {where} rule needs a name")
                continue
            name, message = reader.text(keys["name"], "name"), reader.text(keys.get("message"), "message")
        else:
            name, message = reader.text(item, f"each {where} rule"), ""
        if not all(part.isidentifier() for part in name.split(".")):
            reader.problem(item, f"{where} rule '{name}' is not a Python name (write e.g. itertools or permutations)")
            continue
        rules.append(Rule(name, message))
    return tuple(rules)


def _tests(reader: _Reader, node: yaml.Node | None, kind: SubmissionKind, limits: Limits,
           checker: CheckerSpec | None) -> tuple[Test, ...]:
    if node is None:
        return ()
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        reader.problem(node, "tests must be a non-empty list of tests")
        return ()
    tests: list[Test] = []
    seen: dict[str, yaml.Node] = {}
    for item in node.value:
        test = _test(reader, item, kind, limits, checker)
        if test is None:
            continue
        if test.name in seen:
            reader.problem(item, f"two tests are named '{test.name}': names must be unique")
        seen[test.name] = item
        tests.append(test)
    return tuple(tests)


def _test(reader: _Reader, node: yaml.Node, kind: SubmissionKind, limits: Limits,
          checker: CheckerSpec | None) -> Test | None:
    keys = reader.mapping(node, TEST_KEYS, "a test")
    if not isinstance(node, yaml.MappingNode):
        return None
    name = reader.text(keys.get("name"), "name")
    if "name" not in keys:
        reader.problem(node, "missing key 'name': every test needs a name students can see")
    where = f"test '{name}'"
    form = _form(reader, keys, kind, where)
    call, stdin = kind.test_input(reader, keys, node, where) if form.takes_call else (None, None)
    compare = reader.text(keys.get("compare"), "compare", kind.default_compare)
    if compare not in ("value", "output"):
        reader.problem(keys["compare"], f"compare must be 'value' or 'output', not '{compare}'")
        compare = "output"
    elif compare not in kind.compares:
        reader.problem(keys["compare"], kind.compare_problem(compare))
    elif compare == "value" and call is not None and _is_print(call):
        reader.problem(keys["call"], f"{where} prints and returns None: add 'compare: output'")
    expect = _expect(reader, keys, compare, where)
    # The exercise's checker applies to what it was written for: returned values, or a program's output.
    inherited = checker if checker and (compare == kind.default_compare) else CheckerSpec(compare)
    test_checker = read_checker(reader, keys.get("checker"), inherited)
    if "given" in keys and kind.harness_mode != "module":
        reader.problem(keys["given"], f"'given' binds names for a call: {where} is not a function test")
    test = Test(
        name=name,
        call=call,
        stdin=stdin,
        compare=compare,  # type: ignore[arg-type]
        expect=expect,
        hidden=reader.typed(keys.get("hidden"), bool, "hidden", False, "true or false"),
        big=reader.typed(keys.get("big"), bool, "big", False, "true or false"),
        points=reader.typed(keys.get("points"), float, "points", 1.0, "a number"),
        checker=test_checker,
        limits=read_limits(reader, keys.get("limits"), limits, f"the limits of {where}"),
        line=node.start_mark.line + 1,
        form=form.name,
        given=read_given(reader, keys["given"], where, reader.path) if "given" in keys else (),
        **read_feedback(reader, keys.get("feedback"), where, own_checker=test_checker.name == "custom"),
        description=reader.text(keys.get("description"), f"description of {where}"),
    )
    return form.read(reader, keys, test, where)


def _form(reader: _Reader, keys: dict[str, yaml.Node], kind: SubmissionKind, where: str) -> TestForm:
    """The test's form, chosen by the keys it writes (the plain call or run when none)."""
    chosen = [form for form in FORMS.values() if any(key in keys for key in form.keys)]
    for form in chosen[1:]:
        first = next(key for key in form.keys if key in keys)
        other = next(key for key in chosen[0].keys if key in keys)
        reader.problem(keys[first], f"{where} has both '{other}' and '{first}': a test is one of them")
    form = chosen[0] if chosen else FORMS["call"]
    if form.kinds and kind.name not in form.kinds:
        key = next(key for key in form.keys if key in keys)
        tests = " or ".join(f"{k} exercises" for k in form.kinds)
        reader.problem(keys[key], f"'{key}' is for {tests}; {where} is in a {kind.name} exercise")
        return FORMS["call"]
    return form


def _is_print(call: str) -> bool:
    try:
        tree = ast.parse(call, mode="eval").body
    except SyntaxError:
        return False
    return isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "print"


def _expect(reader: _Reader, keys: dict[str, yaml.Node], compare: str, where: str) -> object:
    if "expect" in keys and "expect_literal" in keys:
        reader.problem(keys["expect_literal"], f"{where} has both 'expect' and 'expect_literal': keep one")
    if "expect_literal" in keys:
        text = reader.text(keys["expect_literal"], "expect_literal")
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            reader.problem(keys["expect_literal"], f"expect_literal of {where} is not a Python literal: {text!r}")
            return MISSING
    if "expect" not in keys:
        return MISSING
    node = keys["expect"]
    if compare == "output":
        if not isinstance(node, yaml.ScalarNode):
            reader.problem(node, f"{where} compares printed output: 'expect' must be the text, not a list or mapping")
            return MISSING
        return str(node.value)  # the text as written: `expect: 2680` means the line "2680"
    return reader.value(node)


def find_exercise(folder: Path, exercise_id: str) -> Path:
    return folder / f"{exercise_id}.yaml"


def exercise_paths(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.yaml"))


Reader = _Reader  # the reader, for a course's other YAML files (an exam's: grader/server/exams_spec.py)
