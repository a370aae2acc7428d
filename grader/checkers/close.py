"""Numbers within a tolerance, item by item inside lists, tuples and dicts (Kattis's float checking)."""

from __future__ import annotations

import math
from builtins import abs as builtins_abs  # the checker's own `abs` argument shadows the builtin
from fractions import Fraction

from grader.checkers.registry import checker
from grader.checkers.shown import show, type_name
from grader.model import CheckResult


@checker("close")
def close(expected: object, actual: object, rel: float = 1e-9, abs: float = 1e-12,  # noqa: A002 - the spec's name
          nan_equal: bool = False) -> CheckResult:
    """Equal within max(rel x |expected|, abs) for every number; an int is a number (3 == 3.0); a str,
    None or bool never passes for a number; containers must have the same type and shape."""
    problem = _first_difference(expected, actual, (), rel, abs, nan_equal)
    if problem is None:
        return CheckResult(passed=True)
    return CheckResult(passed=False, feedback=problem)


_NUMBERS = {int, float}


def _is_number(value: object) -> bool:
    return type(value) in (int, float)  # exact types: no bool, no subclass with a lying __eq__


def _number_difference(expected: float, actual: float, at: str, rel: float, tolerance: float,
                       nan_equal: bool) -> str | None:
    if type(expected) is float and math.isnan(expected) or type(actual) is float and math.isnan(actual):
        if nan_equal and expected != expected and actual != actual:
            return None
        return f"expected {show(expected, 40)}{at}, got {show(actual, 40)} (nan equals nothing)"
    if expected == actual:
        return None
    if any(type(n) is float and math.isinf(n) for n in (expected, actual)):
        return f"expected {show(expected, 40)}{at}, got {show(actual, 40)}: off by inf"
    try:
        want, got = float(expected), float(actual)
        off = math.fabs(want - got)
        within = off <= max(rel * math.fabs(want), tolerance)
    except OverflowError:  # an int past a float's range (10**400): exactly, as fractions
        exact = abs(Fraction(expected) - Fraction(actual))
        if exact <= max(Fraction(rel) * abs(Fraction(expected)), Fraction(tolerance)):
            return None
        return f"expected {show(expected, 40)}{at}, got {show(actual, 40)}: off by {_size(exact)}"
    if within and not math.isinf(off):
        return None
    relative = f", {off / math.fabs(want):.3g} relative" if want and not math.isinf(off) else ""
    return f"expected {show(expected, 40)}{at}, got {show(actual, 40)}: off by {off:.3g}{relative}"


def _size(off: Fraction) -> str:
    """A difference as a float would show it, or by its power of two past a float's range."""
    try:
        return f"{float(off):.3g}"
    except OverflowError:
        return f"about 2**{int(off).bit_length() - 1}"


def _first_difference(expected: object, actual: object, where: tuple[str, ...], rel: float, tolerance: float,
                      nan_equal: bool) -> str | None:
    """Where and how `actual` first differs from `expected` (None: nowhere); `where` is the path of
    indexes down to here, written out only for a difference."""
    if type(expected) in (int, float) and type(actual) in (int, float) and expected == actual:
        return None  # the usual case, first: no Fraction for equal ints, no text for where it is
    at = f" at {''.join(where)}" if where else ""
    if _is_number(expected):
        if not _is_number(actual):
            return f"expected a number{at}, got a {type_name(actual)}: {show(actual, 40)}"
        if type(expected) is int and type(actual) is int:  # exact: 2**64 - 1 is not 2**64 in a float's way
            off_int = builtins_abs(expected - actual)
            if off_int <= max(Fraction(rel) * builtins_abs(expected), Fraction(tolerance)):
                return None
            return f"expected {show(expected, 40)}{at}, got {show(actual, 40)}: off by {_size(Fraction(off_int))}"
        return _number_difference(expected, actual, at, rel, tolerance, nan_equal)  # type: ignore[arg-type]
    if type(expected) is not type(actual):
        return f"expected a {type_name(expected)}{at}, got a {type_name(actual)}: {show(actual, 40)}"
    if isinstance(expected, (list, tuple)):
        if len(expected) != len(actual):  # type: ignore[arg-type]
            return f"expected {len(expected)} items{at}, got {len(actual)}"  # type: ignore[arg-type]
        if expected == actual and {*map(type, expected), *map(type, actual)} <= _NUMBERS:  # type: ignore[call-overload]
            return None  # equal plain numbers (a plot's points): compared in C, no bool taken for an int
        for index, (want, got) in enumerate(zip(expected, actual)):  # type: ignore[call-overload]
            if type(want) in (int, float) and type(got) in (int, float) and want == got:
                continue  # as above, without the call
            problem = _first_difference(want, got, (*where, f"[{index}]"), rel, tolerance, nan_equal)
            if problem:
                return problem
        return None
    if isinstance(expected, dict):
        if set(expected) != set(actual):  # type: ignore[arg-type]
            return f"expected the keys {show(sorted(expected, key=repr), 40)}{at}, got {show(sorted(actual, key=repr), 40)}"  # type: ignore[arg-type]
        for key in expected:
            problem = _first_difference(expected[key], actual[key], (*where, f"[{key!r}]"), rel, tolerance, nan_equal)  # type: ignore[index]
            if problem:
                return problem
        return None
    return None if expected == actual else f"expected {show(expected, 40)}{at}, got {show(actual, 40)}"
