"""Numbers within a tolerance, item by item inside lists, tuples and dicts (Kattis's float checking)."""

from __future__ import annotations

import math
from builtins import abs as builtins_abs  # the checker's own `abs` argument shadows the builtin

from grader.checkers import checker, show, type_name
from grader.model import CheckResult


@checker("close")
def close(expected: object, actual: object, rel: float = 1e-9, abs: float = 1e-12,  # noqa: A002 - the spec's name
          nan_equal: bool = False) -> CheckResult:
    """Equal within max(rel x |expected|, abs) for every number; an int is a number (3 == 3.0); a str,
    None or bool never passes for a number; containers must have the same type and shape."""
    problem = _first_difference(expected, actual, "", rel, abs, nan_equal)
    if problem is None:
        return CheckResult(passed=True)
    return CheckResult(passed=False, feedback=problem)


def _is_number(value: object) -> bool:
    return type(value) in (int, float)  # exact types: no bool, no subclass with a lying __eq__


def _first_difference(expected: object, actual: object, where: str, rel: float, tolerance: float,
                      nan_equal: bool) -> str | None:
    at = f" at {where}" if where else ""
    if _is_number(expected):
        if not _is_number(actual):
            return f"expected a number{at}, got a {type_name(actual)}: {show(actual, 40)}"
        if type(expected) is int and type(actual) is int:  # exact: 2**64 - 1 is not 2**64 in a float's way
            off_int = builtins_abs(expected - actual)
            if off_int == 0:
                return None
            from fractions import Fraction  # exact: a float of a huge int overflows or rounds

            if off_int <= max(Fraction(rel) * builtins_abs(expected), Fraction(tolerance)):
                return None
            return f"expected {show(expected, 40)}{at}, got {show(actual, 40)}: off by {off_int}"
        if expected == actual:  # int and float compared exactly, as Python does
            return None
        want, got = float(expected), float(actual)  # type: ignore[arg-type]
        if math.isnan(want) or math.isnan(got):
            if nan_equal and math.isnan(want) and math.isnan(got):
                return None
            return f"expected {show(expected, 40)}{at}, got {show(actual, 40)} (nan equals nothing)"
        if want == got:
            return None
        off = math.inf if math.isinf(want) or math.isinf(got) else math.fabs(want - got)
        if off <= max(rel * math.fabs(want), tolerance):
            return None
        relative = f", {off / math.fabs(want):.3g} relative" if want and not math.isinf(off) else ""
        return f"expected {show(expected, 40)}{at}, got {show(actual, 40)}: off by {off:.3g}{relative}"
    if type(expected) is not type(actual):
        return f"expected a {type_name(expected)}{at}, got a {type_name(actual)}: {show(actual, 40)}"
    if isinstance(expected, (list, tuple)):
        if len(expected) != len(actual):  # type: ignore[arg-type]
            return f"expected {len(expected)} items{at}, got {len(actual)}"  # type: ignore[arg-type]
        for index, (want, got) in enumerate(zip(expected, actual)):  # type: ignore[call-overload]
            problem = _first_difference(want, got, f"{where}[{index}]", rel, tolerance, nan_equal)
            if problem:
                return problem
        return None
    if isinstance(expected, dict):
        if set(expected) != set(actual):  # type: ignore[arg-type]
            return f"expected the keys {show(sorted(expected, key=repr), 40)}{at}, got {show(sorted(actual, key=repr), 40)}"  # type: ignore[arg-type]
        for key in expected:
            problem = _first_difference(expected[key], actual[key], f"{where}[{key!r}]", rel, tolerance, nan_equal)  # type: ignore[index]
            if problem:
                return problem
        return None
    return None if expected == actual else f"expected {show(expected, 40)}{at}, got {show(actual, 40)}"
