"""How returned values are compared and described: each value as canonical text (typed, or loose as == sees
it), the items of collections, and a difference said in words. Shared by the checkers of this package; its
own module below them, so a checker module never imports the package that registers it (no import circle)."""

from __future__ import annotations

import itertools
from json.encoder import encode_basestring as _json_string  # type: ignore[attr-defined]
from typing import Any

from grader.checkers.shown import show, type_name
from grader.model import Opaque
from grader.sandbox.wire import Fields, Items
from grader.words import a, count

def typed(value: object) -> str:
    """A canonical text of `value` in which equal means equal with types: True != 1, (1,) != [1], '2' != 2;
    a set's items and a dict's pairs in sorted order. Built without hashing anything of the value (a hostile
    reply's ints can all share one hash), in time about linear in its size."""
    out: list[str] = []
    _canonical(value, out)
    return "".join(out)


def loose(value: object) -> str:
    """A canonical text in which equal means Python's ==: 2 == 2.0 == True's 1, {1} == frozenset({1});
    a list is still no tuple, as in Python. Built like `typed`, without hashing."""
    out: list[str] = []
    _canonical(value, out, numbers=True)
    return "".join(out)


def _number(value: object) -> str:
    """An int, bool or float as one text per number: an integral float as the int it equals."""
    if type(value) is float and value.is_integer():  # type: ignore[attr-defined]
        value = int(value)  # type: ignore[call-overload]
    return "i" + hex(value) if type(value) in (int, bool) else "f" + repr(value)  # type: ignore[arg-type]


def _canonical(value: object, out: list[str], numbers: bool = False) -> None:
    kind = type(value)
    if numbers and kind in (int, bool, float):
        out.append(_number(value))
    elif numbers and kind in (set, frozenset, dict):
        # == ignores the set's kind; the items' texts sorted, as `typed` does (no hash taken)
        if kind is dict:
            pairs = sorted(loose(k) + ":" + loose(v) for k, v in value.items())  # type: ignore[attr-defined]
            out.append("d[" + ",".join(pairs) + "]")
        else:
            out.append("S[" + ",".join(sorted(map(loose, value))) + "]")  # type: ignore[call-overload]
    elif numbers and kind in (list, tuple):
        out.append("l[" if kind is list else "t[")
        for item in value:  # type: ignore[attr-defined]
            _canonical(item, out, True)
            out.append(",")
        out.append("]")
    elif kind is str:
        out.append("s" + _json_string(value))
    elif kind is int:
        out.append("i" + hex(value))  # hex: no digit limit for the spec's huge ints, and linear
    elif kind is bool or value is None:
        out.append(repr(value)[0])  # "T", "F", "N"
    elif kind is float:
        out.append("f" + ("0.0" if value == 0 else repr(value)))  # -0.0 == 0.0, as Python says
    elif kind in (list, tuple):
        opening = "l[" if kind is list else "t["
        if value and set(map(type, value)) == {str}:  # type: ignore[call-overload]
            # The same text in one pass in C: lists of str (a board's rows, lines) are the bulk of many
            # answers, and a call per item made comparing them a large part of a check.
            out.append(opening + "s" + ",s".join(map(_json_string, value)) + ",]")  # type: ignore[arg-type]
            return
        out.append(opening)
        for item in value:  # type: ignore[attr-defined]
            _canonical(item, out)
            out.append(",")
        out.append("]")
    elif kind in (set, frozenset):
        out.append("S[" + ",".join(sorted(map(typed, value))) + "]")  # type: ignore[call-overload]
    elif kind is dict:
        out.append("d[")
        for key, item in sorted(((typed(k), v) for k, v in value.items()), key=_first):  # type: ignore[attr-defined]
            out.append(key + ":")
            _canonical(item, out)
            out.append(",")
        out.append("]")
    elif kind is bytes:
        out.append("y" + _json_string(value.decode("latin-1")))  # type: ignore[attr-defined]
    elif (kind.__module__, kind.__name__) in _EXACT:  # a Fraction, a Decimal: == by exact value, across int, float, Fraction, Decimal
        out.append(_exact(value, numbers))
    elif kind is Fields:  # a dataclass: its class's name and its fields, as its generated == compares them
        out.append("c" + _json_string(value.type_name) + "[")  # type: ignore[attr-defined]
        for name, item in value.fields:  # type: ignore[attr-defined]
            out.append(_json_string(name) + ":")
            _canonical(item, out, numbers)
            out.append(",")
        out.append("]")
    elif kind is Items:
        _canonical_items(value, out, numbers)  # type: ignore[arg-type]
    else:  # a date from YAML, an Opaque part of a reply: its type and its repr
        out.append("?" + _json_string(f"{kind.__module__}.{kind.__qualname__}:{value!r}"))


def _first(pair: tuple[str, object]) -> str:
    return pair[0]


_EXACT = {("fractions", "Fraction"), ("decimal", "Decimal")}  # by name: fractions imports re, ms at every start
_EXPONENT_CAP = 4000  # a Decimal's exponent past which its exact value is not worked out (10**4000 digits)


def _exact(value: Any, numbers: bool) -> str:
    """An exact number's text: with `numbers`, the text of the int or float it equals, when it equals one
    (Fraction(1, 2) == 0.5 == Decimal('0.5')); else its own kind's, by value."""
    from fractions import Fraction

    if type(value).__name__ == "Decimal":
        if not value.is_finite():
            return ("f" + repr(float(value))) if numbers and not value.is_nan() else "D" + str(value)
        if abs(value.as_tuple().exponent) > _EXPONENT_CAP:  # type: ignore[arg-type]
            return "D" + str(value.normalize())
        value = Fraction(value)
    elif not numbers:
        return f"Q{value.numerator:x}/{value.denominator:x}"
    if value.denominator == 1:
        return _number(value.numerator) if numbers else f"Q{value.numerator:x}/1"
    if numbers:
        try:
            near = float(value)
        except OverflowError:
            near = None  # type: ignore[assignment]
        if near is not None and Fraction(near) == value:
            return _number(near)
    return f"Q{value.numerator:x}/{value.denominator:x}"


_UNIQUE = itertools.count()


def _canonical_items(value: Items, out: list[str], numbers: bool) -> None:
    """An iterable read in the sandbox: a set-like one (a dict's keys) as a set, a mapping (a Counter, an
    OrderedDict) as a dict, with `numbers` (==: dict_keys == set, Counter == dict); any other as its items
    of its type (a generator equals a generator of the same items, never a list, as ==)."""
    if numbers and value.form == "one":
        # == is identity for its class (a generator, dict.values()): it equals itself only, and a value
        # brought out of a sandbox is never the object the other side is (assertEqual(gen, gen2) fails).
        out.append(f"O{next(_UNIQUE)}")
    elif numbers and value.form == "set":
        out.append("S[" + ",".join(sorted(loose(item) for item in value.items)) + "]")
    elif numbers and value.form == "map":
        out.append("d[" + ",".join(sorted(loose(k) + ":" + loose(v) for k, v in value.items)) + "]")  # type: ignore[misc]
    else:
        out.append("I" + _json_string(value.type_name) + value.form + "[")
        for item in value.items:
            _canonical(item, out, numbers)
            out.append(",")
        out.append("]")


def members(value: object) -> list[object] | None:
    """What iterating `value` gives, as assertCountEqual reads it (a mapping's keys, a text's characters),
    or None when it is not iterable."""
    if type(value) in (str, bytes):
        return list(value)  # type: ignore[call-overload]
    if type(value) is dict:
        return list(value)  # type: ignore[call-overload]
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    if type(value) is Items:
        return [k for k, _ in value.items] if value.form == "map" else list(value.items)  # type: ignore[misc]
    return None


def a_type(value: object) -> str:
    """'an int', 'a list', 'None'."""
    return "None" if value is None else a(type_name(value))


def describe_difference(expected: object, actual: object) -> str:
    """One line a student can act on: a type, a length, the items missing or extra, the first difference."""
    if type(expected) is not type(actual):
        return f"expected {a_type(expected)}, got {a_type(actual)}: {show(actual, 60)}"
    note = item_types(expected, actual)
    if note:
        return note
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
    """(items missing, items extra) of two lists as multisets of typed items: their canonical texts sorted
    and merged, so no hash of a hostile item is ever taken."""
    want, got = sorted(map(typed, expected)), sorted(map(typed, actual))
    return merge_difference(want, got)


def merge_difference(want: list[str], got: list[str]) -> tuple[int, int]:
    """(missing, extra) of two sorted lists of canonical texts."""
    if want == got:
        return 0, 0
    missing = extra = i = j = 0
    while i < len(want) and j < len(got):
        if want[i] == got[j]:
            i, j = i + 1, j + 1
        elif want[i] < got[j]:
            missing, i = missing + 1, i + 1
        else:
            extra, j = extra + 1, j + 1
    return missing + len(want) - i, extra + len(got) - j


def item_types(expected: object, actual: object) -> str:
    """'the items are of type tuple, expected list' when no item has a type the expected items have."""
    if not (isinstance(expected, (list, tuple, set, frozenset)) and isinstance(actual, (list, tuple, set, frozenset))):
        return ""
    want = sorted({type_name(item) for item in expected})  # type: ignore[attr-defined]
    got = sorted({type_name(item) for item in actual})  # type: ignore[attr-defined]
    if not want or not got or set(want) & set(got):  # some items of the right type: counts say more
        return ""
    return f"the items are of type {' and '.join(got)}, expected {' and '.join(want)}: {show(actual, 60)}"


def not_plain(value: object) -> str:
    """The type name of the first part of a returned value that is not plain data (a map, a generator), or ""."""
    level = [value]
    for _ in range(300):  # replies nest no deeper than this (replies.VALUE_DEPTH)
        if not level:
            return ""
        for item in level:
            if type(item) is Opaque:
                return item.type_name  # type: ignore[attr-defined]
        level = [inner for item in level if type(item) in (list, tuple, set, frozenset)
                 for inner in item] + [inner for item in level if type(item) is dict  # type: ignore[attr-defined]
                                        for inner in (*item.keys(), *item.values())]  # type: ignore[attr-defined]
    return ""



def not_plain_feedback(actual: object) -> str:
    name = not_plain(actual)
    return f"the returned value holds {a(name)} object, which is not plain data (return lists, tuples, str, " \
        "int, ...)" if name else ""
