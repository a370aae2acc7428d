"""same_items is assertCountEqual and equal is assertEqual on values read as data: a table of both, with
what Python's own assertion says beside each row."""

from __future__ import annotations

import unittest

import pytest

from grader.checkers import CHECKERS
from grader.sandbox.wire import Items

GENERATOR = Items("generator", "one", (1, 2))  # a generator read in the sandbox: == is identity for its class
VALUES = Items("dict_values", "one", (2,))
KEYS = Items("dict_keys", "set", (1,))


@pytest.mark.parametrize(("expected", "actual", "python"), [
    ([], "", ("", [])),
    (["a", "b"], "ba", ("ba", ["a", "b"])),
    (["a"], "ab", ("ab", ["a"])),
    ([1, 2], GENERATOR, ((x for x in (1, 2)), [1, 2])),
    ([2], VALUES, ({1: 2}.values(), [2])),
    ({1}, KEYS, ({1: 0}.keys(), {1})),
], ids=["empty-text", "text-any-order", "text-extra", "generator", "dict-values", "dict-keys"])
def test_same_items_passes_where_assert_count_equal_does(expected: object, actual: object,
                                                         python: tuple[object, object]) -> None:
    assert CHECKERS["same_items"](expected, actual).passed == _passes(unittest.TestCase().assertCountEqual, *python)


@pytest.mark.parametrize(("expected", "actual", "python"), [
    ([1, 2], GENERATOR, ((x for x in (1, 2)), [1, 2])),
    ([2], VALUES, ({1: 2}.values(), [2])),
    ({1}, KEYS, ({1: 0}.keys(), {1})),
    ([[1, 2]], [GENERATOR], ([(x for x in (1, 2))], [[1, 2]])),
    (2, 2.0, (2.0, 2)),
], ids=["generator", "dict-values", "dict-keys-are-a-set", "nested-generator", "numbers"])
def test_equal_passes_where_assert_equal_does(expected: object, actual: object, python: tuple[object, object]) -> None:
    assert CHECKERS["equal"](expected, actual).passed == _passes(unittest.TestCase().assertEqual, *python)


def test_a_value_compared_by_identity_is_told_why_and_what_to_do() -> None:
    feedback = CHECKERS["equal"]([1, 2], GENERATOR).feedback
    assert "a generator object equals only itself" in feedback and "same_items" in feedback


def _passes(assertion, first: object, second: object) -> bool:  # type: ignore[no-untyped-def]
    try:
        assertion(first, second)
    except AssertionError:
        return False
    return True
