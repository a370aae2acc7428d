"""Checkers: pure functions (expected, actual, **args) -> CheckResult, registered by the name specs use. A
checker that also wants the test's input is marked `takes_input` (it gets input=...). A new checker is one
module that registers itself, plus its import line at the end of this file; or, from a package of its own, an
entry point in the `grader.checkers` group (docs/extending.md)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from grader.checkers.canonical import (  # noqa: F401 - used from here, and named from here by others
    a_type, merge_difference, not_plain_feedback, describe_difference, item_types, loose, members,
    multiset_difference, not_plain, typed)
from grader.checkers.registry import CHECKERS, Checker, CheckerError, checker  # noqa: F401 - used from here
from grader.checkers.shown import first_difference, safe_repr, show, show_pair, type_name  # noqa: F401 - used from here
from grader.model import CheckerSpec, CheckResult
from grader.words import count


def typed_args(func: Callable[..., CheckResult], args: dict[str, object]) -> tuple[dict[str, object], str]:
    """A spec's checker args in the types the checker's defaults have, or why not. YAML 1.1 reads `1e-9`
    as text: a number's text is a number where the default is one."""
    import inspect  # spec loading only: a cached exercise never gets here

    typed: dict[str, object] = {}
    for name, value in args.items():
        parameter = inspect.signature(func).parameters.get(name)
        default = parameter.default if parameter is not None else None
        if isinstance(default, float) and isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                return args, f"checker arg '{name}' must be a number, not {value!r}"
        if isinstance(default, bool) != isinstance(value, bool) or (
                isinstance(default, (int, float)) and not isinstance(value, (int, float))):
            return args, f"checker arg '{name}' must be {type(default).__name__}, not {value!r}"
        typed[name] = value
    return typed, ""


def takes_input(spec: CheckerSpec) -> bool:
    """Whether the checker reads the test's input (a course's own checker may)."""
    return bool(getattr(CHECKERS[spec.name], "takes_input", False))


def run_checker(spec: CheckerSpec, expected: object, actual: object, input: object = None, *,
                lenient: bool = True) -> CheckResult:
    """The checker's word on one answer, with what it found when it fails; CheckerError when the checker
    itself fails. A checker that raises on an answer (a shape no comparison foresaw) fails that answer;
    `lenient=False` lets it raise (validate's sanity check reports such a checker)."""
    func = CHECKERS[spec.name]
    extra = {"input": input} if takes_input(spec) else {}
    try:
        check = func(expected, actual, **dict(spec.args), **extra)
    except CheckerError:
        raise
    except Exception as error:  # noqa: BLE001 - an answer of a shape no comparison foresaw is the answer's fault
        if not lenient:
            raise
        return CheckResult(passed=False, reason="type", feedback=f"the answer could not be compared: "
                                                                  f"{type(error).__name__}: {str(error)[:200]}")
    if not isinstance(check, CheckResult):  # a package's checker, say, returning a bool
        raise CheckerError(f"checker '{spec.name}' returned {type(check).__name__}, not a CheckResult")
    if check.passed or check.reason:
        return check
    return replace(check, reason=mismatch(expected, actual))


def mismatch(expected: object, actual: object) -> str:
    """What a failed comparison found when its checker did not say: another type (of the answer or of all
    its items), or another value."""
    if type(expected) is not type(actual) or item_types(expected, actual):
        return "type"
    return "value"


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
        return CheckResult(passed=False, feedback="printed nothing", reason="output")
    first = next((i for i, (w, g) in enumerate(zip(want, got)) if w != g), min(len(want), len(got)))
    if first < min(len(want), len(got)):
        hint = " (only spaces differ)" if want[first].split() == got[first].split() else ""
        feedback = f"line {first + 1} differs{hint}"
    else:
        feedback = f"expected {count(len(want), 'line')}, got {len(got)}"
    import difflib  # only for a wrong output: a passing check never pays for it

    # Around the first difference only: difflib's time grows with the product of the two sides' lengths.
    start, end = max(first - 2, 0), first + DIFF_LINES
    diff = difflib.unified_diff([visible(w) for w in want[start:end]], [visible(g) for g in got[start:end]],
                                "expected", "actual", lineterm="", n=2)
    return CheckResult(passed=False, feedback=feedback, details="\n".join(_shifted(line, start) for line in diff),
                       reason="output")


def _shifted(line: str, offset: int) -> str:
    """A hunk header of a difference that began `offset` lines in, numbered as the whole text's lines."""
    if not offset or not line.startswith("@@ "):
        return line
    return re.sub(r"([-+])(\d+)", lambda m: f"{m.group(1)}{int(m.group(2)) + offset}", line, count=2)


DIFF_LINES = 100  # lines of each side that a wrong output's difference covers, from the first that differs


def visible(line: str) -> str:
    """Make whitespace that matters visible in a diff: inner tabs and runs of spaces."""
    return line.replace("\t", "→").replace(" ", "·")


# ---------------------------------------------------------------- values
@checker("value")
def value(expected: object, actual: object) -> CheckResult:
    """The returned value, type included (a numpy or pandas value: as the `array` checker compares it)."""
    if _data_value(expected) or _data_value(actual):
        from grader.checkers.arrays import array

        return array(expected, actual)
    if typed(expected) == typed(actual):
        return CheckResult(passed=True)
    feedback = not_plain_feedback(actual) or describe_difference(expected, actual)
    if loose(expected) == loose(actual):  # equal by ==: say this checker is the type-strict one
        feedback += " (checker 'value' compares types too; checker 'equal' compares with ==)"
    return CheckResult(passed=False, feedback=feedback)


def _data_value(value: object) -> bool:
    module = type(value).__module__
    return module.startswith("numpy") or module.startswith("pandas")


from grader.checkers import equality, arrays, close, custom  # noqa: E402,F401,I001 - each registers itself, in this order
from grader.checkers.equality import by_identity, equal, same_items, unordered  # noqa: E402,F401 - named from here
