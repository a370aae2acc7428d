"""Checkers as tables of (expected, actual, passes)."""

from __future__ import annotations

import pytest

from grader.checkers import output, unordered, value


@pytest.mark.parametrize(("expected", "actual", "passes"), [
    ("2 4", "2 4\n", True),
    ("2 4", "2 4   \n\n\n", True),
    ("a\nb", "a  \nb\n", True),
    ("2 4", "2  4", False),
    ("2 4", " 2 4", False),
    ("a\nb", "a\n\nb", False),
    ("none", "None", False),
    ("0 free\n1 attacked", "0 free\r\n1 attacked\r\n", True),
], ids=["final newline", "trailing blank lines", "trailing spaces", "inner spaces", "leading space",
        "blank line inside", "case", "windows newlines"])
def test_output_compares_like_a_judge(expected: str, actual: str, passes: bool) -> None:
    assert output(expected, actual).passed is passes


def test_output_says_when_only_spaces_differ_and_shows_a_diff() -> None:
    result = output("2 4", "2  4")
    assert result.feedback == "line 1 differs (only spaces differ)"
    assert "-2·4" in result.details and "+2··4" in result.details


def test_output_says_when_nothing_was_printed() -> None:
    assert output("2 4", "").feedback == "printed nothing"


@pytest.mark.parametrize(("expected", "actual", "passes"), [
    (2680, 2680, True),
    (2680, "2680", False),
    (1, True, False),
    (1, 1.0, False),
    ([1, 3, 0, 2], [1, 3, 0, 2], True),
    ([1, 3, 0, 2], (1, 3, 0, 2), False),
    (None, None, True),
    (None, [], False),
    ({"a": [1]}, {"a": [1]}, True),
    ({1, 2}, {2, 1}, True),
    ([[1], [2]], [[1], (2,)], False),
    ([1, 2], [1, True], False),
    (["1", "2"], ["1", 2], False),
    ([], (), False),
    (["a", "b"], ["a", "b"], True),
    ([[".Q", "Q."]], [[".Q", "Q."]], True),
], ids=["int", "str is not int", "bool is not int", "float is not int", "list", "tuple is not list",
        "None", "empty list is not None", "dict", "set", "nested tuple", "a bool among ints",
        "an int among strings", "empty tuple is not empty list", "flat strings", "rows of a board"])
def test_value_compares_with_types(expected: object, actual: object, passes: bool) -> None:
    assert value(expected, actual).passed is passes
    assert value(actual, expected).passed is passes  # symmetric


def test_value_feedback_is_structural() -> None:
    assert value([1, 3, 0, 2], (1, 3, 0, 2)).feedback.startswith("expected a list, got a tuple")
    assert value(["a", "b", "c"], ["a", "x"]).feedback == "2 items missing, 1 extra (expected 3 items, got 2)"
    assert value(["a", "b"], ["b", "a"]).feedback == "the right items in the wrong order (first at index 0)"
    assert value([1, 2, 3], [1, 5, 3]).feedback == "item 1 differs: expected 2, got 5"
    assert value([1, 2, 3], [0, 5, 3]).feedback == "item 0 differs: expected 1, got 0 (and 1 item after it)"


def test_unordered_accepts_any_order_but_not_missing_or_duplicate_items() -> None:
    boards = [[".Q..", "...Q"], ["..Q.", "Q..."]]
    assert unordered(boards, list(reversed(boards))).passed
    assert not unordered(boards, boards[:1]).passed
    assert unordered(boards, boards[:1]).feedback == "1 missing (expected 2 items in any order, got 1)"
    assert not unordered(boards, boards + boards[:1]).passed
    assert not unordered(boards, tuple(boards)).passed
    assert not unordered(boards, [tuple(b) for b in boards]).passed


@pytest.mark.parametrize("actual, passes", [
    ([["..Q.", "Q..."], [".Q..", "...Q"]], True),  # boards, counted on the fast path
    ([["..Q.", "Q..."], (".Q..", "...Q")], False),  # one board a tuple: the slow path, types kept
    ([["..Q.", "Q..."], [".Q..", b"...Q"]], False),  # bytes among the rows
    ([["..Q.", "Q..."], [".Q..", "...Q"], []], False),  # an empty board is an extra item
    ([["..Q.", "Q..."]], False),
])
def test_unordered_boards_keep_types_on_either_path(actual: list[object], passes: bool) -> None:
    boards = [[".Q..", "...Q"], ["..Q.", "Q..."]]
    assert unordered(boards, actual).passed is passes
    assert unordered(actual, boards).passed is passes  # the same either way round


def test_a_board_counted_on_the_fast_path_matches_the_same_board_on_the_slow_path() -> None:
    # The expected boards take the fast path; the tuple sends the actual list down the slow one: the
    # board both sides hold must still count as the same item.
    feedback = unordered([[".Q"], ["Q."]], [[".Q"], ("Q.",)]).feedback
    assert feedback == "1 missing, 1 extra (expected 2 items in any order, got 2)"


# ---------------------------------------------------------------- close: numbers within a tolerance
from grader.checkers.close import close  # noqa: E402


@pytest.mark.parametrize(("expected", "actual"), [
    (1.0, 1.0 + 1e-12), (3.0, 3), ([0.1 + 0.2, (1.0,)], [0.3, (1.0,)]), ({"a": 1e-13}, {"a": 0.0}),
])
def test_close_accepts_numbers_within_tolerance(expected: object, actual: object) -> None:
    assert close(expected, actual).passed


@pytest.mark.parametrize(("expected", "actual", "feedback"), [
    (1.0, 1.1, "expected 1.0, got 1.1: off by 0.1, 0.1 relative"),
    ([1.0, 2.0], [1.0, 2.5], "expected 2.0 at [1], got 2.5: off by 0.5, 0.25 relative"),
    (1.0, "1.0", "expected a number, got a str: '1.0'"),
    (1.0, None, "expected a number, got a None: None"),
    (1.0, True, "expected a number, got a bool: True"),
    ([1.0], (1.0,), "expected a list, got a tuple: (1.0,)"),
    ([1.0], [1.0, 2.0], "expected 1 items, got 2"),
    ({"a": 1.0}, {"b": 1.0}, "expected the keys ['a'], got ['b']"),
    (float("nan"), float("nan"), "expected nan, got nan (nan equals nothing)"),
])
def test_close_refuses_with_the_first_item_out_of_tolerance(expected: object, actual: object, feedback: str) -> None:
    check = close(expected, actual)
    assert not check.passed and check.feedback == feedback


def test_close_tolerances_and_nan_are_settable() -> None:
    assert close(100.0, 100.5, rel=0.01).passed and not close(100.0, 102.0, rel=0.01).passed
    assert close(0.0, 0.001, abs=0.01).passed
    assert close(float("nan"), float("nan"), nan_equal=True).passed


def test_close_refuses_a_float_subclass_whatever_its_eq_says() -> None:
    class Liar(float):
        def __eq__(self, other: object) -> bool:
            return True

    assert not close(1.0, Liar(5.0)).passed


@pytest.mark.parametrize(("expected", "actual", "passed"), [
    (3, 10**400, False), (10**400, 10**400, True), (10**400, 2 * 10**400, False), (10**400, 10**400 + 1, True),
    (10**400, 1.5, False), (1.5, 10**400, False), (float("inf"), 1.5, False), (float("inf"), 10**400, False),
    (float("inf"), float("inf"), True), ([10**400, 1], [10**400, 1], True),
])
def test_close_takes_ints_past_a_floats_range_exactly(expected: object, actual: object, passed: bool) -> None:
    assert close(expected, actual).passed is passed


def test_first_difference_is_the_first_differing_character() -> None:
    import random

    from grader.checkers import first_difference

    rng = random.Random(5)
    for _ in range(3000):
        a = "".join(rng.choice("ab") for _ in range(rng.randint(0, 24)))
        b = "".join(rng.choice("ab") for _ in range(rng.randint(0, 24)))
        naive = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        assert first_difference(a, b) == naive, (a, b)


def test_a_value_shown_lazily_is_its_repr_cut_to_the_width() -> None:
    import random

    from grader.checkers import show, show_pair

    rng = random.Random(7)

    def value(depth: int = 0) -> object:
        pick = rng.random()
        if depth > 3 or pick < 0.4:
            return rng.choice([1, -2.5, "a'b", None, True, (), (3,), [], {}, float("nan"), b"x", {1, 2}])
        if pick < 0.6:
            return [value(depth + 1) for _ in range(rng.randrange(5))]
        if pick < 0.8:
            return tuple(value(depth + 1) for _ in range(rng.randrange(4)))
        return {rng.randrange(9): value(depth + 1) for _ in range(rng.randrange(4))}

    for _ in range(2000):
        shown = value()
        text = repr(shown)
        assert show(shown, 20) == (text if len(text) <= 20 else text[:17] + "...")
        assert show_pair(shown, shown, 10**6) == (text, text)


def test_a_long_wrong_answer_is_shown_without_the_repr_of_all_of_it() -> None:
    """A million-item answer wrong at item 10: the report's window is made from its first items only."""
    from grader.checkers import show, show_pair

    made = []

    class Item:
        def __init__(self, number: int) -> None:
            self.number = number

        def __repr__(self) -> str:
            made.append(self.number)
            return str(self.number)

    expected = [Item(i) for i in range(1_000_000)]
    actual = list(expected)
    actual[10] = Item(-1)
    want, got = show_pair(expected, actual, 200)
    assert want.startswith("[0, 1, 2") and "10, 11" in want and "-1, 11" in got
    assert len(made) < 5_000
    made.clear()
    assert show(expected, 60).endswith("...") and len(made) < 100
