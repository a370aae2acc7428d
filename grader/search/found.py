"""What a visible search found, kept for the student's next `grader check` of the same file, where each
found input is a test of its own (no points: the grade is the graded file's alone). Kept in the
student's cache folder, keyed by the exercise and the submission's path; only `grader check` reads or
writes it, so a batch, a server or `validate` grade the file and nothing else. A hidden search's input is
never kept (its outcome holds none)."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path

from grader.cache import cache_dir, key_hash, keep
from grader.model import MISSING, Exercise, Report, Test, Verdict

KEPT = 10  # found inputs per file, the latest kept
NAME = "found earlier: "  # how such a test is named


def _path(exercise: Exercise, submission: Path) -> Path:
    digest = key_hash(f"{exercise.id}\0{submission.resolve()}".encode()).hexdigest()
    return cache_dir() / f"found-{digest}.json"


def found_tests(exercise: Exercise, submission: Path) -> tuple[Test, ...]:
    """The inputs a visible search found on this file before, each as a test."""
    search = exercise.search
    if search is None or search.hidden or exercise.entry is None:
        return ()
    try:
        calls = json.loads(_path(exercise, submission).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    names = {test.name for test in exercise.tests}
    tests = []
    for call in calls if isinstance(calls, list) else ():
        if isinstance(call, str) and _calls_entry(call, exercise.entry) and NAME + call not in names:
            tests.append(Test(name=NAME + call, call=call, stdin=None, compare="value", expect=MISSING,
                              hidden=False, big=False, points=0.0, checker=search.checker, limits=search.limits))
            names.add(NAME + call)
    return tuple(tests)


def remember(exercise: Exercise, submission: Path, report: Report) -> None:
    """Keep the input the report's visible search found, for the next check of the file."""
    search = exercise.search
    if search is None or search.hidden:
        return
    found = [o.input for o in report.outcomes if o.test == search.name and not o.hidden and o.input
             and o.verdict not in (Verdict.PASSED, Verdict.SKIPPED, Verdict.GRADER_ERROR)]
    if not found:
        return
    path = _path(exercise, submission)
    calls = [test.call for test in found_tests(exercise, submission)]
    calls = [call for call in calls if call != found[0]][-(KEPT - 1):] + [found[0]]
    keep(path, json.dumps(calls).encode())


def _calls_entry(call: str, entry: str) -> bool:
    try:
        tree = ast.parse(call, mode="eval").body
    except SyntaxError:
        return False
    return isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == entry


def with_found(exercise: Exercise, submission: Path) -> Exercise:
    """The exercise with this file's earlier found inputs as tests, after the spec's own."""
    tests = found_tests(exercise, submission)
    return replace(exercise, tests=exercise.tests + tests) if tests else exercise
