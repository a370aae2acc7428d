"""Expected values and checkers: the reference (or the predict snippet) confirms every written `expect`, and
every test's checker must refuse junk answers."""

from __future__ import annotations

from dataclasses import replace

from grader.checkers import CHECKERS, CheckerError, judge_lines, loose, run_checker, show, typed
from grader.forms import form_of
from grader.forms.base import checker_input
from grader.expected import expected_values
from grader.kinds.base import primary_reference
from grader.kinds import kind_of
from grader.model import MISSING, Exercise, Test


def produced_values(exercise: Exercise) -> dict[str, object]:
    """What the source of truth gives for every test, written `expect` or not (computed once, cached by
    content through grader.expected). Raises ExpectationError when the reference cannot produce them."""
    unwritten = tuple(replace(test, expect=MISSING) for test in exercise.tests)
    return expected_values(replace(exercise, tests=unwritten), every=True)


def expectation_failures(exercise: Exercise, produced: dict[str, object]) -> list[str]:
    """One line per written `expect` that the source of truth contradicts, judged by the test's checker."""
    kind = kind_of(exercise.kind)
    truth = f"{kind.truth_label} prints" if not kind.runs_code else f"{kind.truth_label} {_name(exercise)} gives"
    failures = []
    for test in exercise.tests:
        if test.expect is MISSING and test.io is None and not test.steps:
            continue
        try:
            problem = form_of(test).confirm(test, produced[test.name])
        except CheckerError as error:
            failures.append(f"test '{test.name}' (line {test.line}): {error}")
            continue
        if problem and test.raises is not None:
            failures.append(f"test '{test.name}' (line {test.line}): the spec says it raises, but "
                            f"{truth}: {problem}; fix the spec or the reference")
        elif problem and (test.steps or test.io is not None):
            failures.append(f"test '{test.name}' (line {test.line}): {truth} an answer that contradicts the "
                            f"spec: {problem}; fix the spec or the reference")
        elif problem:
            what = kind.expect_label
            failures.append(f"test '{test.name}' (line {test.line}): {what} is wrong: the spec says "
                            f"{_shown(test.expect)} but {truth} {_shown(produced[test.name])} "
                            f"({problem}); fix the spec, or leave 'expect' out to use the reference")
    return failures


def _name(exercise: Exercise) -> str:
    reference = primary_reference(exercise)
    return f"accepted/{reference.name}" if reference else "(none)"


def _shown(value: object) -> str:
    return show(value, 60)


# ---------------------------------------------------------------- checker sanity
class AlwaysEqual:
    """A returned object that claims to equal anything: a checker that trusts == would pass it."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "AlwaysEqual()"


def junk_answers(test: Test, expected: object) -> list[tuple[str, object]]:
    """Answers no checker may accept, with a label for each; the ones equal to `expected` are left out."""
    if test.compare == "output":
        if not judge_lines(str(expected)):  # the test expects no output: a different text must fail
            return [("unrelated text", "junk\n")]
        junk: list[tuple[str, object]] = [("empty output", ""), ("the text None", "None\n")]
        return [(label, text) for label, text in junk if judge_lines(str(text)) != judge_lines(str(expected))]
    twin = wrong_type(expected)
    junk = [("None", None), (f"a {type(twin).__name__} instead of a {type(expected).__name__}", twin),
            ("an object whose __eq__ is always True", AlwaysEqual())]
    if isinstance(expected, (list, tuple)) and expected:
        junk.append(("a list of objects whose __eq__ is always True", type(expected)(AlwaysEqual() for _ in expected)))
    return [(label, value) for label, value in junk if not _same(value, expected)]


def wrong_type(expected: object) -> object:
    """The expected value in another type, e.g. '2680' for 2680, a tuple for a list, 1 for True."""
    if isinstance(expected, bool):
        return int(expected)
    if isinstance(expected, (int, float)):
        return str(expected)
    if isinstance(expected, str):
        return [expected]
    if isinstance(expected, list):
        return tuple(expected)
    if isinstance(expected, tuple):
        return list(expected)
    if isinstance(expected, (set, frozenset)):
        return sorted(expected, key=repr)
    if isinstance(expected, dict):
        return list(expected.items())
    return "None" if expected is None else repr(expected)


def _equal(value: object, expected: object) -> bool:
    """Equal as the == checkers judge: as a set of items for same_items, which ignores the kind of collection."""
    try:
        return bool(loose(value) == loose(expected)) or (
            isinstance(value, (list, tuple, set, frozenset)) and isinstance(expected, (list, tuple, set, frozenset))
            and sorted(map(loose, value)) == sorted(map(loose, expected)))
    except TypeError:
        return False


def _same(value: object, expected: object) -> bool:
    try:
        return bool(typed(value) == typed(expected))
    except TypeError:
        return False


def input_failures(exercise: Exercise) -> list[str]:
    """A checker that reads the call's arguments must get them all: one it cannot be given (a call in the
    argument, a name the test setup made) would reach it as None, silently."""
    from grader.checkers import takes_input
    from grader.forms.given import unreadable_arguments

    failures = []
    for test in exercise.tests:
        if test.call is None or test.form != "call" or not takes_input(test.checker):
            continue
        unreadable = unreadable_arguments(test.call, test)
        if unreadable:
            failures.append(f"test '{test.name}' (line {test.line}): checker '{test.checker.label}' reads the call's "
                            f"arguments, but {', '.join(f'`{a}`' for a in unreadable)} is neither a literal nor a "
                            f"`given` name, so it would get None: write it as a literal or bind it with given")
    return failures


def checker_failures(exercise: Exercise, expected: dict[str, object]) -> list[str]:
    """One line per (checker, junk answer) that a checker accepts or crashes on, naming the first test.
    A course's own checker gets plain data only (what a run can give it): no object with a lying __eq__."""
    failures: dict[tuple[str, str], str] = {}
    for test in exercise.tests:
        if test.name not in expected or test.form not in ("call",):  # forms judge their own expectations
            continue
        label_of = test.checker.label
        junks = junk_answers(test, expected[test.name])
        if test.checker.name == "custom":
            junks = [(label, junk) for label, junk in junks if "__eq__" not in label]
        if getattr(CHECKERS.get(test.checker.name), "by_equality", False):  # == may take another type
            junks = [(label, junk) for label, junk in junks if not _equal(junk, expected[test.name])]
        for label, junk in junks:
            key = (label_of, label)
            if key in failures:
                continue
            try:
                check = run_checker(test.checker, expected[test.name], junk, checker_input(test), lenient=False)
            except Exception as error:  # noqa: BLE001 - a checker that raises is the finding
                failures[key] = (f"checker '{label_of}' raised {type(error).__name__}: {error} on "
                                 f"{label} (test '{test.name}'); a checker must return a CheckResult")
                continue
            if check.passed:
                failures[key] = (f"checker '{label_of}' accepts {label} as the answer to test "
                                 f"'{test.name}': it must compare the value, its type included")
    return list(failures.values())
