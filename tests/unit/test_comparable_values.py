"""`equal` and `same_items` take what a reference and a submission return that Python can compare, as
unittest's assertEqual and assertCountEqual do: generators and other iterables, dict views, Counter,
Fraction, Decimal and dataclasses, read as data in the sandbox (never by the submission's == in the
grader); an endless generator is a wrong answer that says so."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli

SPEC = """\
title: Values
kind: function
entry: answer
statement: s
tests:
  - name: items
    call: answer("items")
    checker: same_items
    expect: [a, b, b]
  - name: keys equal a set
    call: answer("keys")
    checker: equal
  - name: keys in any order
    call: answer("keys")
    checker: same_items
  - name: ratio
    call: answer("ratio")
    checker: equal
  - name: half
    call: answer("half")
    checker: equal
    expect: 0.5
  - name: money
    call: answer("money")
    checker: equal
  - name: point
    call: answer("point")
    checker: equal
"""
REFERENCE = """\
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction


@dataclass
class Point:
    x: int
    y: int


def answer(what):
    return {"items": ["b", "a", "b"], "keys": {"x", "y"}, "ratio": Fraction(1, 3), "half": Fraction(1, 2),
            "money": Decimal("2.50"), "point": Point(1, 2)}[what]
"""
ITERABLES = {
    "a generator": '(letter for letter in "bab")',
    "a map": 'map(str, "bab")',
    "a list iterator": 'iter(["b", "a", "b"])',
    "a deque": '__import__("collections").deque("bab")',
    "a Counter's elements": 'Counter("abb").elements()',
}


def graded(course, body: str) -> dict[str, dict]:  # noqa: ANN001
    course.write("values", SPEC)
    course.reference("values", "ref.py", REFERENCE)
    path = course.submission("values.py", body)
    result = run_cli("check", "values", path, "--exercises", course.exercises, "--format", "json", "--all")
    assert result.returncode in (0, 1), result.stderr[-2000:]
    return {t["name"]: t for t in json.loads(result.stdout)["tests"]}


@pytest.mark.parametrize("iterable", ITERABLES)
def test_same_items_takes_any_iterable_as_assert_count_equal_does(course, iterable: str) -> None:  # noqa: ANN001
    body = f"from collections import Counter\n\n\ndef answer(what):\n    return {ITERABLES[iterable]}\n"
    assert graded(course, body)["items"]["verdict"] == "passed"


def test_exact_numbers_dict_views_and_dataclasses_compare_by_equality(course) -> None:  # noqa: ANN001
    body = REFERENCE.replace('"keys": {"x", "y"}', '"keys": {"x": 1, "y": 2}.keys()').replace(
        '"ratio": Fraction(1, 3)', '"ratio": Fraction(2, 6)').replace('"half": Fraction(1, 2)', '"half": 0.5').replace(
        'Decimal("2.50")', 'Decimal("2.5")')
    tests = graded(course, body)
    assert {name: t["verdict"] for name, t in tests.items()} == dict.fromkeys(tests, "passed"), tests


def test_a_wrong_fraction_or_dataclass_is_a_wrong_answer_that_shows_both(course) -> None:  # noqa: ANN001
    tests = graded(course, REFERENCE.replace("Fraction(1, 3)", "Fraction(1, 4)").replace("Point(1, 2)", "Point(1, 3)"))
    assert tests["ratio"]["verdict"] == "wrong_answer" and "Fraction(1, 4)" in tests["ratio"]["feedback"]
    assert tests["point"]["verdict"] == "wrong_answer" and "Point(x=1, y=3)" in tests["point"]["feedback"]


def test_a_generator_is_not_a_list_to_equal_and_an_endless_one_says_so(course) -> None:  # noqa: ANN001
    body = ("import itertools\n\n\ndef answer(what):\n    if what == 'items':\n        return itertools.count()\n"
            "    return (x for x in 'xy')\n")
    tests = graded(course, body)
    assert tests["items"]["verdict"] == "wrong_answer" and "more than" in tests["items"]["feedback"]
    assert tests["keys equal a set"]["verdict"] == "wrong_answer"
    assert "generator" in tests["keys equal a set"]["feedback"]


def test_a_step_that_returns_a_generator_is_read_once(course) -> None:  # noqa: ANN001
    course.write("values", SPEC.replace('''  - name: items
    call: answer("items")
    checker: same_items
    expect: [a, b, b]
''', '''  - name: items
    checker: same_items
    steps:
      - answer("items")
'''))
    course.reference("values", "ref.py", REFERENCE)
    path = course.submission("values.py", REFERENCE.replace('"items": ["b", "a", "b"]', '"items": iter("bab")'))
    result = run_cli("check", "values", path, "--exercises", course.exercises, "--format", "json", "--all")
    tests = {t["name"]: t for t in json.loads(result.stdout)["tests"]}
    assert tests["items"]["verdict"] == "passed", tests["items"]
