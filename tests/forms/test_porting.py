"""What a ported unittest/pytest suite needs, through the CLI: exact and regex exception messages, exact
classes, classes the submission defines, == across numbers, any-iterable comparisons, objects compared by
their own ==, test-side setup the submission cannot see, and feedback chosen by the verdict."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli

SQUARE = """title: Square
kind: function
entry: square
statement: s
checker: equal
tests:
  - name: one
    call: square(1)
    expect: 1
  - name: zero
    call: square(0)
    raises: RAISES
"""
SQUARE_REFERENCE = """def square(n):
    if n < 1:
        raise ValueError("square must be between 1 and 64")
    return 2 ** (n - 1)
"""


def check(course, exercise_id: str, code: str) -> dict:  # noqa: ANN001
    result = run_cli("check", "--exercises", course.exercises, exercise_id,
                     course.submission(f"{exercise_id}.py", code), "--format", "json")
    return result.json()


def by_name(report: dict) -> dict[str, dict]:
    return {test["name"]: test for test in report["tests"]}


@pytest.mark.parametrize("raises, message, passes", [
    ("{class: ValueError, message: between 1}", "square must be between 1 and 64.", True),  # contains: today's
    ("{class: ValueError, message_equals: square must be between 1 and 64}", "square must be between 1 and 64.", False),
    ("{class: ValueError, message_equals: square must be between 1 and 64}", "square must be between 1 and 64", True),
    ("{class: ValueError, match: '^square .* 64$'}", "square must be between 1 and 64", True),
    ("{class: ValueError, match: '^square .* 64$'}", "square must be between 1 and 64.", False),
])
def test_a_message_is_contained_equal_or_matched(course, raises: str, message: str, passes: bool) -> None:  # noqa: ANN001
    course.write("square", SQUARE.replace("RAISES", raises))
    course.reference("square", "plain.py", SQUARE_REFERENCE)
    code = SQUARE_REFERENCE.replace("square must be between 1 and 64", message)
    zero = by_name(check(course, "square", code))["zero"]
    assert (zero["verdict"] == "passed") is passes, zero
    if not passes and "message_equals" in raises:
        assert zero["feedback"] == ("expected the message 'square must be between 1 and 64', "
                                    "but it is 'square must be between 1 and 64.'")


def test_subclass_false_wants_the_class_itself(course) -> None:  # noqa: ANN001
    course.write("square", SQUARE.replace("RAISES", "{class: ValueError, subclass: false}"))
    course.reference("square", "plain.py", SQUARE_REFERENCE)
    sub = "class E(ValueError):\n    pass\n\n\n" + SQUARE_REFERENCE.replace("raise ValueError", "raise E")
    assert by_name(check(course, "square", sub))["zero"]["verdict"] == "wrong_answer"
    assert by_name(check(course, "square", SQUARE_REFERENCE))["zero"]["verdict"] == "passed"
    fake = "class ValueError(Exception):\n    pass\n\n\n" + SQUARE_REFERENCE  # merely named so: not one
    assert by_name(check(course, "square", fake))["zero"]["verdict"] == "wrong_answer"


def test_a_class_the_submission_defines_is_named_with_its_message_checked(course) -> None:  # noqa: ANN001
    course.write("square", SQUARE.replace(
        "RAISES", "{class: SquareError, bases: [ValueError], message_equals: no such square}"))
    own = ("class SquareError(ValueError):\n    pass\n\n\ndef square(n):\n    if n < 1:\n"
           "        raise SquareError('no such square')\n    return 2 ** (n - 1)\n")
    course.reference("square", "plain.py", own)
    assert run_cli("validate", "--exercises", course.exercises, "square").returncode == 0
    assert check(course, "square", own)["verdict"] == "passed"
    worded = by_name(check(course, "square", own.replace("no such square", "No such square")))["zero"]
    assert worded["verdict"] == "wrong_answer" and "expected the message 'no such square'" in worded["feedback"]
    other = by_name(check(course, "square", own.replace("raise SquareError", "raise ValueError")))["zero"]
    assert other["verdict"] == "wrong_answer" and "but it raised ValueError" in other["feedback"]
    not_value = by_name(check(course, "square", own.replace("SquareError(ValueError)", "SquareError(Exception)")))
    assert not_value["zero"]["verdict"] == "wrong_answer"


def test_a_name_like_a_builtin_class_is_a_spec_error(course) -> None:  # noqa: ANN001
    course.write("square", SQUARE.replace("RAISES", "ValueErorr"))
    result = run_cli("validate", "--exercises", course.exercises, "square")
    assert result.returncode != 0 and "did you mean ValueError?" in result.stdout + result.stderr


@pytest.mark.parametrize("checker, answer, passes, words", [
    ("equal", "1.0", True, ""),
    ("value", "1.0", False, "checker 'equal' compares with =="),
    ("equal", "2", False, "(compared with ==)"),
])
def test_equal_is_python_equality_and_value_says_it_is_strict(course, checker: str, answer: str, passes: bool,  # noqa: ANN001
                                                             words: str) -> None:
    course.write("square", SQUARE.replace("checker: equal", f"checker: {checker}").replace("RAISES", "ValueError"))
    course.reference("square", "plain.py", SQUARE_REFERENCE)
    one = by_name(check(course, "square", SQUARE_REFERENCE.replace("return 2 ** (n - 1)", f"return {answer}")))["one"]
    assert (one["verdict"] == "passed") is passes and words in one["feedback"]


def test_close_is_exact_on_ints(course) -> None:  # noqa: ANN001
    course.write("total", "title: T\nkind: function\nentry: total\nstatement: s\n"
                          "checker: {name: close, args: {rel: 0.0, abs: 0.0}}\ntests:\n"
                          "  - {name: total, call: total(), expect: 18446744073709551615}\n")
    assert check(course, "total", "def total():\n    return 2 ** 64\n")["verdict"] == "wrong_answer"
    assert check(course, "total", "def total():\n    return 2 ** 64 - 1\n")["verdict"] == "passed"


ITEMS = """title: Items
kind: function
entry: items
statement: s
checker: CHECKER
tests:
  - {name: pairs, call: items(), expect_literal: "[[1, 2], [3, 4]]"}
"""


@pytest.mark.parametrize("checker, returned, passes, words", [
    ("same_items", "{(3, 4), (1, 2)}", False, "the items are of type tuple, expected list"),
    ("same_items", "([3, 4], [1, 2])", True, ""),
    ("unordered", "[(3, 4), (1, 2)]", False, "the items are of type tuple, expected list"),
    ("unordered", "([3, 4], [1, 2])", False, "checker 'same_items' takes any collection"),
    ("value", "[(1, 2), (3, 4)]", False, "the items are of type tuple, expected list"),
])
def test_collections_in_any_order_and_type_mismatches_named(course, checker: str, returned: str, passes: bool,  # noqa: ANN001
                                                           words: str) -> None:
    course.write("items", ITEMS.replace("CHECKER", checker))
    (pairs,) = check(course, "items", f"def items():\n    return {returned}\n")["tests"]
    assert (pairs["verdict"] == "passed") is passes and words in pairs["feedback"], pairs


CLOCK = """title: Clock
kind: function
entry: Clock
statement: s
tests:
  - name: add
    steps:
      - {do: "Clock(10, 0) + 3", equals: "Clock(10, 3)"}
"""
CLOCK_REFERENCE = """class Clock:
    def __init__(self, hour, minute):
        self.minutes = (hour * 60 + minute) % 1440

    def __repr__(self):
        return f"Clock({self.minutes // 60}, {self.minutes % 60})"

    def __eq__(self, other):
        return self.minutes == other.minutes

    def __add__(self, minutes):
        return Clock(0, self.minutes + minutes)
"""


def test_an_object_is_compared_by_its_own_eq_and_both_reprs_shown(course) -> None:  # noqa: ANN001
    course.write("clock", CLOCK)
    course.reference("clock", "plain.py", CLOCK_REFERENCE)
    assert run_cli("validate", "--exercises", course.exercises, "clock").returncode == 0
    assert check(course, "clock", CLOCK_REFERENCE)["verdict"] == "passed"
    (add,) = check(course, "clock", CLOCK_REFERENCE.replace("self.minutes + minutes", "self.minutes + 2 * minutes"))["tests"]
    assert add["verdict"] == "wrong_answer"
    assert add["feedback"] == "step 1 `Clock(10, 0) + 3`: expected 'Clock(10, 3)' (`Clock(10, 3)`), got 'Clock(10, 6)' (compared with ==)"
    assert (add["expected"], add["actual"]) == ("Clock(10, 3)", "Clock(10, 6)")


TEST_SETUP = """title: Norm
kind: function
entry: norm
statement: s
checker: close
test_setup: |
  import math


  def point(x, y):
      return (x, y)
tests:
  - {name: unit, call: "norm(point(math.cos(1), math.sin(1)))", expect: 1.0}
"""


def test_test_setup_is_seen_by_the_tests_and_not_by_the_submission(course) -> None:  # noqa: ANN001
    course.write("norm", TEST_SETUP)
    good = "import math\n\n\ndef norm(p):\n    return math.hypot(*p)\n"
    assert check(course, "norm", good)["verdict"] == "passed"
    forgot = by_name(check(course, "norm", "def norm(p):\n    return math.hypot(*p)\n"))["unit"]
    assert forgot["verdict"] == "runtime_error" and "NameError" in forgot["feedback"]
    prelude = TEST_SETUP.replace("test_setup: |\n  import math\n", "prelude: import math\ntest_setup: |\n  import math\n")
    course.write("norm", prelude)  # prelude keeps its meaning: it runs in the submission's namespace
    assert check(course, "norm", "def norm(p):\n    return math.hypot(*p)\n")["verdict"] == "passed"


def test_feedback_may_depend_on_the_verdict(course) -> None:  # noqa: ANN001
    spec = SQUARE.replace("RAISES", "ValueError").replace("    expect: 1\n", "    expect: 1\n    feedback:\n"
                                                          "      wrong_answer: Square 1 holds one grain.\n"
                                                          "      any: Read the statement again.\n")
    course.write("square", spec)
    course.reference("square", "plain.py", SQUARE_REFERENCE)
    wrong = by_name(check(course, "square", SQUARE_REFERENCE.replace("2 ** (n - 1)", "2 ** n")))["one"]
    assert wrong["feedback"].endswith("— Square 1 holds one grain.")
    raised = by_name(check(course, "square", SQUARE_REFERENCE.replace("return 2 ** (n - 1)", "return 1 / 0")))["one"]
    assert raised["verdict"] == "runtime_error" and raised["feedback"].endswith("— Read the statement again.")
    passed = by_name(check(course, "square", SQUARE_REFERENCE))["one"]
    assert "Square 1" not in passed.get("feedback", "")
    course.write("square", spec.replace("      any: Read the statement again.\n", "      wrong: x\n"))
    result = run_cli("validate", "--exercises", course.exercises, "square")
    assert result.returncode != 0 and "unknown key 'wrong' in feedback of test 'one'" in result.stdout + result.stderr


def test_validate_refuses_a_step_whose_reference_raises_a_name_error(course) -> None:  # noqa: ANN001
    course.write("clock", CLOCK.replace('      - {do: "Clock(10, 0) + 3", equals: "Clock(10, 3)"}\n',
                                        "      - c = Clock(10, 0)\n      - self.assertEqual(c + 3, Clock(10, 3))\n"))
    course.reference("clock", "plain.py", CLOCK_REFERENCE)
    result = run_cli("validate", "--exercises", course.exercises, "clock")
    assert result.returncode != 0
    assert "step 2 `self.assertEqual(c + 3, Clock(10, 3))` raised NameError" in result.stdout
