"""A report writes every value it is given: a value whose repr fails (a library's repr of a value decoded
from the sandbox, as pandas' of a frame whose column it cannot format) is shown as what it is, and the test
still gets its verdict, never a grader error (found by tests/fuzz/test_data_values_fuzz.py)."""

from __future__ import annotations

from grader.checkers.shown import safe_repr, show, show_pair


class Unformattable:
    def __repr__(self) -> str:
        raise TypeError("ufunc 'isnan' not supported for the input types")


def test_a_value_whose_repr_fails_is_shown_as_its_type() -> None:
    assert safe_repr(Unformattable()) == "<Unformattable that cannot be shown>"
    assert show(Unformattable()) == "<Unformattable that cannot be shown>"
    assert show_pair([1, 2], Unformattable()) == ("[1, 2]", "<Unformattable that cannot be shown>")
