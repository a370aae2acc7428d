"""The checkers of unittest's equality assertions: `equal` (assertEqual: ==), `same_items` (assertCountEqual)
and `unordered` (a list in any order, types kept), on values read as data in the sandbox."""

from __future__ import annotations

from grader.checkers.canonical import (a_type, merge_difference, not_plain_feedback, describe_difference,
                                       item_types, loose, members, multiset_difference, not_plain)
from grader.checkers.registry import checker
from grader.checkers.shown import show
from grader.model import CheckResult
from grader.sandbox.wire import Items
from grader.words import a, count


@checker("equal")
def equal(expected: object, actual: object) -> CheckResult:
    """The returned value equal by Python's ==, as unittest's assertEqual: 2 == 2.0, a set == a frozenset,
    Fraction(1, 2) == 0.5, a dict's keys == a set, a dataclass by its fields; a list is still not a tuple.
    The reply is data, so no == of the submission's runs here."""
    name = not_plain(actual)
    if name:
        return CheckResult(passed=False, feedback=not_plain_feedback(actual))
    if loose(expected) == loose(actual):
        return CheckResult(passed=True)
    alone = by_identity(actual)
    if alone:
        return CheckResult(passed=False, reason="type", feedback=f"{a(alone)} object equals only itself (its == "
                           f"is identity, as in assertEqual): return a list, or compare with checker 'same_items'")
    return CheckResult(passed=False, feedback=describe_difference(expected, actual) + " (compared with ==)")


def by_identity(value: object) -> str:
    """The type name of the first part of `value` whose == is identity (a generator, dict.values()), or ""."""
    level = [value]
    for _ in range(300):
        if not level:
            return ""
        for item in level:
            if type(item) is Items and item.form == "one":  # type: ignore[attr-defined]
                return item.type_name  # type: ignore[attr-defined]
        level = [inner for item in level if type(item) in (list, tuple, set, frozenset) for inner in item]  # type: ignore[attr-defined]
    return ""


equal.by_equality = True  # type: ignore[attr-defined] - validate's junk answers: == may take another type
_ITERABLE = (list, tuple, set, frozenset, dict)


@checker("same_items")
def same_items(expected: object, actual: object) -> CheckResult:
    """Any iterable with the same items, each as often, in any order, items compared with == (unittest's
    assertCountEqual): a set, a tuple or a list of them; a dict's keys; a text's characters (so "" has
    the items of []); a generator, a map, a dict view or any other iterable, read in the sandbox."""
    got_items, want_items = members(actual), members(expected)
    if got_items is None:
        return CheckResult(passed=False, feedback=not_plain_feedback(actual)
                           or f"expected a collection of items, got {a_type(actual)}: {show(actual, 60)}")
    if want_items is None:
        return CheckResult(passed=False, feedback="the spec's expected value is not a collection")
    want, got = sorted(map(loose, want_items)), sorted(map(loose, got_items))
    if want == got:
        return CheckResult(passed=True)
    missing, extra = merge_difference(want, got)
    parts = [f"{missing} missing"] if missing else []
    parts += [f"{extra} extra"] if extra else []
    note = item_types(want_items, got_items)
    return CheckResult(passed=False, feedback=not_plain_feedback(actual) or note or ", ".join(parts)
                       + f" (expected {count(len(want), 'item')} in any order, got {len(got)}; compared with ==)",
                       reason="type" if note or not_plain(actual) else "items")


@checker("unordered")
def unordered(expected: object, actual: object) -> CheckResult:
    """A returned list whose items may come in any order; each item compared with its type."""
    if not isinstance(actual, list):
        return CheckResult(passed=False, feedback=f"expected a list, got {a_type(actual)} (checker 'same_items' "
                                                  f"takes any collection)")
    if not isinstance(expected, list):
        return CheckResult(passed=False, feedback="the spec's expected value is not a list")
    missing, extra = multiset_difference(expected, actual)
    if not missing and not extra:
        return CheckResult(passed=True)
    parts = [f"{missing} missing"] if missing else []
    parts += [f"{extra} extra"] if extra else []
    note = item_types(expected, actual)
    return CheckResult(passed=False, feedback=not_plain_feedback(actual) or note
                       or ", ".join(parts) + f" (expected {count(len(expected), 'item')} in any order, got {len(actual)})",
                       reason="type" if note or not_plain(actual) else "items")


same_items.by_equality = True  # type: ignore[attr-defined]
