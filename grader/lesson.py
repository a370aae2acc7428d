"""`grader import`: a lesson (JSON: a first task, usually a predict question, and `more` code tasks) becomes
exercises in YAML, each with the lesson's solution as its accepted reference.

Lesson keys: id, slug, title, text, task, kind, seed, solution, hints, tests, require, forbid, lines, more.
Task keys (the lesson itself is the first task): task, kind ("predict" or "code"), seed, solution, hints,
tests, require, forbid, lines. Test keys: name, call, stdin, expect, returns, hidden, big.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.checkers import judge_lines
from grader.errors import GraderError, SpecError
from grader.export import value_expect, write_spec
from grader.records import record
from grader.spec import ID_PATTERN, load_exercise

LESSON_KEYS = ("id", "slug", "title", "text", "task", "kind", "seed", "solution", "hints", "tests", "require",
               "forbid", "lines", "more")
TASK_KEYS = ("task", "kind", "seed", "solution", "hints", "tests", "require", "forbid", "lines")
TEST_KEYS = ("name", "call", "stdin", "expect", "returns", "hidden", "big")
TASK_KINDS = ("predict", "code")


class LessonError(GraderError):
    """The lesson cannot be imported; carries every problem found, each with where it is."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


@record
class Imported:
    id: str
    spec: Path
    reference: Path


@dataclass
class _Task:
    """One task turned into a spec (as a plain dict) and the files of its references."""

    id: str
    spec: dict[str, object]
    references: dict[str, str] = field(default_factory=dict)  # "accepted/solution.py" -> text


class _Reader:
    """Walks the lesson, collecting every problem with its place, as `more[1].tests[2].returns`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[str] = []

    def problem(self, where: str, message: str) -> None:
        self.problems.append(f"{self.path}: {where}: {message}" if where else f"{self.path}: {message}")

    def keys(self, data: object, allowed: tuple[str, ...], where: str, required: tuple[str, ...]) -> dict[str, object]:
        if not isinstance(data, dict):
            self.problem(where, f"must be an object with the keys {', '.join(allowed)}")
            return {}
        for key in data:
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else f"; known keys: {', '.join(allowed)}"
                self.problem(where, f"unknown key '{key}'{hint}")
        for key in required:
            if key not in data:
                self.problem(where, f"missing key '{key}'")
        return {key: value for key, value in data.items() if key in allowed}

    def text(self, data: dict[str, object], key: str, where: str, default: str = "") -> str:
        value = data.get(key, default)
        if not isinstance(value, str):
            self.problem(_at(where, key), f"must be a string, not {type(value).__name__}")
            return default
        return value

    def flag(self, data: dict[str, object], key: str, where: str) -> bool:
        value = data.get(key, False)
        if not isinstance(value, bool):
            self.problem(_at(where, key), f"must be true or false, not {value!r}")
            return False
        return value

    def texts(self, data: dict[str, object], key: str, where: str) -> list[str]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            self.problem(_at(where, key), "must be a list of strings")
            return []
        return value

    def rules(self, data: dict[str, object], key: str, where: str) -> list[object]:
        value = data.get(key, [])
        if not isinstance(value, list):
            self.problem(_at(where, key), "must be a list of names, or of {name, message}")
            return []
        rules: list[object] = []
        for index, item in enumerate(value):
            if isinstance(item, str):
                rules.append(item)
            elif isinstance(item, dict) and set(item) <= {"name", "message"} and isinstance(item.get("name"), str):
                rules.append({k: str(v) for k, v in item.items()})
            else:
                self.problem(f"{_at(where, key)}[{index}]", "must be a name, or {\"name\": ..., \"message\": ...}")
        return rules


def _at(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


# ---------------------------------------------------------------- reading
def read_lesson(path: Path) -> list[_Task]:
    """The lesson's tasks as specs; raises LessonError with every problem in the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise LessonError([f"{path}: cannot read the lesson: {error.strerror}"]) from None
    except UnicodeDecodeError:
        raise LessonError([f"{path}: the lesson is not UTF-8 text"]) from None
    except json.JSONDecodeError as error:
        raise LessonError([f"{path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}"]) from None
    reader = _Reader(path)
    lesson = reader.keys(data, LESSON_KEYS, "", required=("title", "task", "kind", "solution"))
    if "slug" not in lesson and "id" not in lesson:
        reader.problem("", "missing key 'slug' (or 'id'): it names the exercises")
    slug = reader.text(lesson, "slug", "") or reader.text(lesson, "id", "")
    slug = re.sub(r"[^a-z0-9]+", "-", slug.lower()).strip("-") or "lesson"
    title = reader.text(lesson, "title", "")
    tasks = [_task(reader, {k: v for k, v in lesson.items() if k in TASK_KEYS}, "", slug, title)]
    more = lesson.get("more", [])
    if not isinstance(more, list):
        reader.problem("more", "must be a list of tasks")
        more = []
    for index, item in enumerate(more):
        where = f"more[{index}]"
        tasks.append(_task(reader, reader.keys(item, TASK_KEYS, where, required=("task", "kind", "solution")),
                           where, slug, title))
    _unique_ids(tasks)
    if reader.problems:
        raise LessonError(reader.problems)
    return tasks


def _task(reader: _Reader, data: dict[str, object], where: str, slug: str, title: str) -> _Task:
    kind = reader.text(data, "kind", where, "code")
    if kind not in TASK_KINDS:
        reader.problem(_at(where, "kind"), f"unknown kind '{kind}'; known kinds: {', '.join(TASK_KINDS)}")
    solution = reader.text(data, "solution", where)
    common: dict[str, object] = {"statement": reader.text(data, "task", where)}
    hints = reader.texts(data, "hints", where)
    if kind == "predict":
        return _predict(reader, data, where, slug, title, solution, common, hints)
    tests = _tests(reader, data, where)
    function = any("call" in test for test in tests)
    for index, test in enumerate(tests):
        if function and "call" not in test:
            reader.problem(f"{_at(where, 'tests')}[{index}]", "missing key 'call': the other tests call a function")
    entry = _entry(reader, where, solution, [str(t["call"]) for t in tests if "call" in t]) if function else None
    exercise_id = entry.replace("_", "-").lower() if entry else f"{slug}-program"
    spec: dict[str, object] = {
        "title": f"{title}: {entry}" if entry else title,
        "kind": "function" if function else "program",
        **({"entry": entry} if entry else {}),
        **common,
        "starter": reader.text(data, "seed", where),
        "hints": hints,
        "require": reader.rules(data, "require", where),
        "forbid": reader.rules(data, "forbid", where),
        "tests": [_spec_test(reader, test, f"{_at(where, 'tests')}[{index}]", function)
                  for index, test in enumerate(tests)],
    }
    return _Task(exercise_id, spec, {"accepted/solution.py": solution})


def _predict(reader: _Reader, data: dict[str, object], where: str, slug: str, title: str, solution: str,
             common: dict[str, object], hints: list[str]) -> _Task:
    lines = reader.texts(data, "lines", where)
    tests = _tests(reader, data, where, required=not lines)
    answer = "\n".join(lines) if "lines" in data else None
    spec_tests: list[dict[str, object]] = []
    for index, test in enumerate(tests):
        place = f"{_at(where, 'tests')}[{index}]"
        for key in ("call", "returns"):
            if key in test:
                reader.problem(f"{place}.{key}", "a predict task compares what its snippet prints; remove it")
        if test.get("stdin"):
            reader.problem(f"{place}.stdin", "a predict task's snippet reads no input")
        spec_test: dict[str, object] = {"name": test.get("name", f"Output {index + 1}")}
        expect = test.get("expect", answer)
        if isinstance(expect, str):
            if answer is not None and judge_lines(expect) != judge_lines(answer):
                reader.problem(f"{place}.expect", f"disagrees with {_at(where, 'lines')}: {expect!r} vs {answer!r}")
            spec_test["expect"] = expect
        if test.get("hidden"):
            spec_test["hidden"] = True
        spec_tests.append(spec_test)
    if not spec_tests:
        spec_tests = [{"name": "Output", **({"expect": answer} if answer is not None else {})}]
    spec: dict[str, object] = {"title": f"{title}: what does it print?", "kind": "predict", **common,
                               "snippet": solution or reader.text(data, "seed", where), "hints": hints,
                               "tests": spec_tests}
    references = {}
    expected = next((t["expect"] for t in spec_tests if isinstance(t.get("expect"), str)), None)
    if isinstance(expected, str):
        references["accepted/answer.txt"] = expected.rstrip("\n") + "\n"
    return _Task(f"{slug}-predict", spec, references)


def _tests(reader: _Reader, data: dict[str, object], where: str, required: bool = True) -> list[dict[str, object]]:
    tests = data.get("tests", [])
    if not isinstance(tests, list) or (required and not tests):
        reader.problem(_at(where, "tests"), "must be a non-empty list of tests")
        return []
    return [reader.keys(test, TEST_KEYS, f"{_at(where, 'tests')}[{index}]", required=("name",))
            for index, test in enumerate(tests)]


def _spec_test(reader: _Reader, test: dict[str, object], where: str, function: bool) -> dict[str, object]:
    name = reader.text(test, "name", where)
    spec: dict[str, object] = {"name": name}
    returns = reader.flag(test, "returns", where)
    if function:
        call = reader.text(test, "call", where).strip()
        try:
            ast.parse(call, mode="eval")
        except SyntaxError as error:
            reader.problem(f"{where}.call", f"is not a Python expression: {error.msg}")
        spec["call"] = call
        if reader.text(test, "stdin", where):
            reader.problem(f"{where}.stdin", "a task whose tests call a function reads no input")
        if not returns:
            spec["compare"] = "output"  # without `returns`, `expect` is what the call prints
        elif call.startswith("print("):
            reader.problem(f"{where}.returns", "the call prints and returns None: remove 'returns'")
    else:
        spec["stdin"] = reader.text(test, "stdin", where)
        if returns:
            reader.problem(f"{where}.returns", "a program task compares what it prints; remove 'returns'")
    if "expect" in test:
        expect = reader.text(test, "expect", where)
        if function and returns:
            try:
                spec.update(value_expect(ast.literal_eval(expect.strip())))
            except (ValueError, SyntaxError):
                reader.problem(f"{where}.expect", f"with 'returns' it must be a Python literal, not {expect!r}")
        else:
            spec["expect"] = expect
    for flag in ("hidden", "big"):
        if reader.flag(test, flag, where):
            spec[flag] = True
    return spec


def _entry(reader: _Reader, where: str, solution: str, calls: list[str]) -> str | None:
    """The function or class the tests call, among those the solution defines."""
    try:
        defined = {node.name for node in ast.parse(solution).body
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    except SyntaxError as error:
        reader.problem(_at(where, "solution"), f"is not valid Python: {error.msg} (line {error.lineno})")
        return None
    called: list[str] = []
    for call in calls:
        try:
            tree = ast.parse(call.strip(), mode="eval")
        except SyntaxError:
            continue
        called += [node.func.id for node in ast.walk(tree)
                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                   and node.func.id in defined and not hasattr(builtins, node.func.id)]
    names = sorted(set(called), key=called.index)
    if len(names) == 1:
        return names[0]
    if not names:
        reader.problem(_at(where, "tests"), "no test calls a function or class the solution defines")
    else:
        reader.problem(_at(where, "tests"), f"the tests call several functions of the solution "
                                            f"({', '.join(names)}): cannot tell which one students write")
    return None


def _unique_ids(tasks: list[_Task]) -> None:
    seen: dict[str, int] = {}
    for task in tasks:
        count = seen.get(task.id, 0) + 1
        seen[task.id] = count
        if count > 1:
            task.id = f"{task.id}-{count}"


# ---------------------------------------------------------------- writing
def import_lesson(lesson: Path, exercises_dir: Path, *, force: bool = False) -> list[Imported]:
    """Write each task as exercises_dir/<id>.yaml and its references beside the folder; nothing is written
    when the lesson has a problem or an exercise exists (unless `force`)."""
    tasks = read_lesson(lesson)
    reference_root = exercises_dir.parent / "reference"
    problems = [f"{task.id}: not a valid exercise id (lower-case letters, digits and '-')"
                for task in tasks if not ID_PATTERN.match(task.id)]
    if not force:
        problems += [f"{exercises_dir / f'{task.id}.yaml'} exists; pass --force to overwrite it"
                     for task in tasks if (exercises_dir / f"{task.id}.yaml").exists()]
    if problems:
        raise LessonError(problems)
    imported = []
    for task in tasks:
        spec = exercises_dir / f"{task.id}.yaml"
        write_spec(task.spec, spec)
        for name, text in task.references.items():
            path = reference_root / task.id / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        try:
            load_exercise(spec)  # what we wrote must load: a failure here is the importer's bug
        except SpecError as error:
            raise LessonError([f"the spec written for task '{task.id}' does not load (a bug in the importer):",
                               *map(str, error.problems)]) from None
        imported.append(Imported(task.id, spec, reference_root / task.id))
    return imported
