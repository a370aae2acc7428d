"""Checkers: pure functions (expected, actual, **args) -> CheckResult, registered by the name specs use. A
checker that also wants the test's input is marked `takes_input` (it gets input=...). A new checker is one
module that registers itself, plus its import line at the end of this file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import chain, repeat
from typing import Protocol

from grader.model import CheckerSpec, CheckResult
from grader.outputs.words import a, count


class Checker(Protocol):
    def __call__(self, expected: object, actual: object, /) -> CheckResult: ...


CHECKERS: dict[str, Callable[..., CheckResult]] = {}


def checker(name: str) -> Callable[[Callable[..., CheckResult]], Callable[..., CheckResult]]:
    """Register a checker so exercise specs can name it."""

    def register(func: Callable[..., CheckResult]) -> Callable[..., CheckResult]:
        CHECKERS[name] = func
        return func

    return register


class CheckerError(Exception):
    """A checker failed (raised, or returned something that is no verdict): a grader error naming it."""


def run_checker(spec: CheckerSpec, expected: object, actual: object, input: object = None) -> CheckResult:
    """The checker's word on one answer; CheckerError when the checker itself fails."""
    func = CHECKERS[spec.name]
    extra = {"input": input} if getattr(func, "takes_input", False) else {}
    return func(expected, actual, **dict(spec.args), **extra)


# ---------------------------------------------------------------- text
def judge_lines(text: str) -> list[str]:
    """Lines as judges compare them: trailing spaces on each line and trailing blank lines do not count."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


@checker("output")
def output(expected: object, actual: object) -> CheckResult:
    """Printed text, compared line by line the way judges do by default."""
    want, got = judge_lines(str(expected)), judge_lines(str(actual))
    if want == got:
        return CheckResult(passed=True)
    if not got:
        return CheckResult(passed=False, feedback="printed nothing")
    for number, (w, g) in enumerate(zip(want, got), start=1):
        if w != g:
            hint = " (only spaces differ)" if w.split() == g.split() else ""
            feedback = f"line {number} differs{hint}"
            break
    else:
        feedback = f"expected {count(len(want), 'line')}, got {len(got)}"
    import difflib  # only for a wrong output: a passing check never pays for it

    diff = difflib.unified_diff([visible(w) for w in want], [visible(g) for g in got],
                                "expected", "actual", lineterm="", n=2)
    return CheckResult(passed=False, feedback=feedback, details="\n".join(diff))


def visible(line: str) -> str:
    """Make whitespace that matters visible in a diff: inner tabs and runs of spaces."""
    return line.replace("\t", "→").replace(" ", "·")


# ---------------------------------------------------------------- values
def typed(value: object) -> object:
    """A form of `value` in which equal means equal with types: True != 1, (1,) != [1], '2' != 2."""
    kind = type(value)
    if kind in (list, tuple):
        leaves = set(map(type, value))  # type: ignore[call-overload]
        if len(leaves) <= 1 and leaves <= {str, int}:  # rows of a board, a list of numbers: no tuple per item
            return (f"{kind.__name__}[{leaves.pop().__name__ if leaves else 'str'}]", tuple(value))  # type: ignore[call-overload]
        return (kind.__name__, tuple(typed(item) for item in value))  # type: ignore[attr-defined]
    if kind in (set, frozenset):
        return ("set", frozenset(typed(item) for item in value))  # type: ignore[attr-defined]
    if kind is dict:
        return ("dict", frozenset((typed(k), typed(v)) for k, v in value.items()))  # type: ignore[attr-defined]
    return (kind.__name__, value)


def show(value: object, width: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def show_pair(expected: object, actual: object, width: int = 2000) -> tuple[str, str]:
    """Both values' reprs; long ones cut to the same window around their first difference, so that a list
    wrong at index 229 shows index 229, not its first items."""
    want, got = repr(expected), repr(actual)
    if max(len(want), len(got)) <= width:
        return want, got
    start = max(0, first_difference(want, got) - width // 4)
    return _window(want, start, width), _window(got, start, width)


def first_difference(a_text: str, b_text: str) -> int:
    """The index of the first character that differs (the shorter's length when one is a prefix)."""
    for index, (left, right) in enumerate(zip(a_text, b_text)):
        if left != right:
            return index
    return min(len(a_text), len(b_text))


def _window(text: str, start: int, width: int) -> str:
    end = start + width
    return ("..." if start else "") + text[start:end] + ("..." if end < len(text) else "")


def type_name(value: object) -> str:
    return "None" if value is None else type(value).__name__


def _a_type(value: object) -> str:
    """'an int', 'a list', 'None'."""
    return "None" if value is None else a(type_name(value))


def describe_difference(expected: object, actual: object) -> str:
    """One line a student can act on: a type, a length, the items missing or extra, the first difference."""
    if type(expected) is not type(actual):
        return f"expected {_a_type(expected)}, got {_a_type(actual)}: {show(actual, 60)}"
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        missing, extra = multiset_difference(expected, actual)
        if (missing or extra) and len(expected) != len(actual):
            parts = [f"{count(missing, 'item')} missing"] if missing else []
            parts += [f"{extra} extra"] if extra else []
            return ", ".join(parts) + f" (expected {count(len(expected), 'item')}, got {len(actual)})"
        if len(expected) == len(actual):
            for index, (w, g) in enumerate(zip(expected, actual)):
                if typed(w) != typed(g):
                    if not (missing or extra):
                        return f"the right items in the wrong order (first at index {index})"
                    later = sum(typed(x) != typed(y) for x, y in zip(expected[index + 1:], actual[index + 1:]))
                    more = f" (and {count(later, 'item')} after it)" if later else ""
                    return f"item {index} differs: expected {show(w, 40)}, got {show(g, 40)}{more}"
    return f"expected {show(expected, 40)}, got {show(actual, 40)}"


def multiset_difference(expected: list[object] | tuple[object, ...],
                        actual: list[object] | tuple[object, ...]) -> tuple[int, int]:
    want, got = _typed_counts(expected), _typed_counts(actual)
    if want == got:
        return 0, 0
    return sum((want - got).values()), sum((got - want).values())


def _typed_counts(items: list[object] | tuple[object, ...]) -> Counter[object]:
    """Counter(typed(item) for item in items), with the same keys; a list of boards (lists of str) is
    checked for that shape in C and counted without a call per item: n-queens' 352 boards in 0.9 ms, not 2.0."""
    if set(map(type, items)) == {list} and set(map(type, chain.from_iterable(items))) <= {str}:  # type: ignore[arg-type]
        return Counter(zip(repeat("list[str]"), map(tuple, items)))  # type: ignore[arg-type]
    return Counter(typed(item) for item in items)


@checker("value")
def value(expected: object, actual: object) -> CheckResult:
    """The returned value, type included."""
    try:
        same = typed(expected) == typed(actual)
    except TypeError:  # an unhashable item inside a set: cannot be equal to plain expected data
        same = False
    if same:
        return CheckResult(passed=True)
    return CheckResult(passed=False, feedback=describe_difference(expected, actual))


@checker("unordered")
def unordered(expected: object, actual: object) -> CheckResult:
    """A returned list whose items may come in any order; each item compared with its type."""
    if not isinstance(actual, list):
        return CheckResult(passed=False, feedback=f"expected a list, got {_a_type(actual)}")
    if not isinstance(expected, list):
        return CheckResult(passed=False, feedback="the spec's expected value is not a list")
    try:
        missing, extra = multiset_difference(expected, actual)
    except TypeError:
        return CheckResult(passed=False, feedback="the list holds items that cannot be compared")
    if not missing and not extra:
        return CheckResult(passed=True)
    parts = [f"{missing} missing"] if missing else []
    parts += [f"{extra} extra"] if extra else []
    return CheckResult(passed=False,
                       feedback=", ".join(parts) + f" (expected {count(len(expected), 'item')} in any order, got {len(actual)})")


from grader.checkers import close, custom  # noqa: E402,F401 - each registers itself
