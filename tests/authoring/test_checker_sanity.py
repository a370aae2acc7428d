"""The checker sanity check of `grader validate`: junk answers that every checker must refuse."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from grader import model
from grader.checkers import CHECKERS
from grader.model import CheckerSpec, CheckResult, Exercise, Limits
from grader.validation.expectations import AlwaysEqual, checker_failures, junk_answers, wrong_type


def case(name: str, compare: str = "value", checker: str = "value") -> model.Test:
    return model.Test(name=name, call=f"f({name!r})", stdin=None, compare=compare, expect=None, hidden=False, big=False,  # type: ignore[arg-type]
                points=1.0, checker=CheckerSpec(checker), limits=Limits())


def exercise(*tests: model.Test, kind: str = "function") -> Exercise:
    return Exercise(id="x", title="x", kind=kind, statement="", tests=tests, path=Path("exercises/x.yaml"), entry="f")


@pytest.mark.parametrize(("expected", "other"), [
    (2680, "2680"), (True, 1), (1.5, "1.5"), ("abc", ["abc"]), ([1, 2], (1, 2)), ((1, 2), [1, 2]),
    ({1, 2}, [1, 2]), ({"a": 1}, [("a", 1)]), (None, "None"),
], ids=["int", "bool", "float", "str", "list", "tuple", "set", "dict", "None"])
def test_the_wrong_type_twin_has_the_same_content_in_another_type(expected: object, other: object) -> None:
    assert wrong_type(expected) == other and type(wrong_type(expected)) is type(other)


def test_junk_never_includes_the_expected_value_itself() -> None:
    labels = [label for label, _ in junk_answers(case("t"), None)]
    assert "None" not in labels and "a str instead of a NoneType" in labels
    assert junk_answers(case("t", "output", "output"), "") == [("unrelated text", "junk\n")]
    assert [label for label, _ in junk_answers(case("t", "output", "output"), "None")] == ["empty output"]


@pytest.mark.parametrize("expected", [0, 2680, [1, 3, 0, 2], [[".Q", "Q."]], "text", (1, 2), None, True, []])
def test_the_builtin_value_checkers_refuse_every_junk_answer(expected: object) -> None:
    checkers = ["value", "unordered"] if isinstance(expected, list) else ["value"]
    for name in checkers:
        assert checker_failures(exercise(case("t", checker=name)), {"t": expected}) == []


def test_the_output_checker_refuses_empty_output_and_none() -> None:
    for expected in ("2 4", "0 free\n1 attacked\n", ""):
        assert checker_failures(exercise(case("t", "output", "output"), kind="program"), {"t": expected}) == []


def test_a_checker_that_trusts_eq_is_reported_once_per_junk_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    def trusting(expected: object, actual: object) -> CheckResult:
        return CheckResult(passed=bool(actual == expected))

    monkeypatch.setitem(CHECKERS, "trusting", trusting)
    tests = [replace(case(name), checker=CheckerSpec("trusting")) for name in ("a", "b")]
    failures = checker_failures(exercise(*tests), {"a": [1, 2], "b": [3]})
    assert failures == [
        "checker 'trusting' accepts an object whose __eq__ is always True as the answer to test 'a': it must "
        "compare the value, its type included",
        "checker 'trusting' accepts a list of objects whose __eq__ is always True as the answer to test 'a': it "
        "must compare the value, its type included",
    ]


def test_a_checker_that_crashes_on_junk_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    def sorting(expected: object, actual: object) -> CheckResult:
        return CheckResult(passed=sorted(expected) == sorted(actual))  # type: ignore[call-overload]

    monkeypatch.setitem(CHECKERS, "sorting", sorting)
    failures = checker_failures(exercise(replace(case("a"), checker=CheckerSpec("sorting"))), {"a": [2, 1]})
    assert any(f.startswith("checker 'sorting' raised TypeError") and "on None (test 'a')" in f for f in failures)
    assert any("accepts a tuple instead of a list" in f for f in failures)


def test_always_equal_claims_to_equal_anything() -> None:
    assert AlwaysEqual() == 5 and AlwaysEqual() == [1]
    assert (AlwaysEqual() != "x") is False
