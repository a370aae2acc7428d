"""One test per spec error message: the messages are the spec of the spec format."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.errors import SpecError
from grader.model import MISSING
from grader.spec import load_exercise

GOOD = """\
title: Add
kind: function
entry: add
statement: Add two numbers.
tests:
  - name: add(1, 2)
    call: add(1, 2)
    expect: 3
"""


def problems(tmp_path: Path, text: str, name: str = "add") -> list[str]:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as caught:
        load_exercise(path)
    return [str(p).replace(str(tmp_path) + "/", "") for p in caught.value.problems]


def test_a_good_spec_loads_into_the_model(tmp_path: Path) -> None:
    path = tmp_path / "add.yaml"
    path.write_text(GOOD)
    exercise = load_exercise(path)
    assert exercise.id == "add" and exercise.kind == "function" and exercise.entry == "add"
    (test,) = exercise.tests
    assert (test.call, test.expect, test.compare, test.checker.name, test.hidden) == ("add(1, 2)", 3, "value", "value", False)


def test_unknown_key_reports_line_column_and_suggestion(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expcet: 3")
    assert problems(tmp_path, text) == [
        "add.yaml:8:5: unknown key 'expcet' in a test (did you mean 'expect'?)"]


def test_unknown_exercise_key_lists_known_keys_when_nothing_is_close(tmp_path: Path) -> None:
    (message,) = problems(tmp_path, GOOD + "zzz: 1\n")
    assert message.startswith("add.yaml:9:1: unknown key 'zzz' in the exercise; known keys: title, kind")


def test_all_errors_of_a_file_are_reported_at_once(tmp_path: Path) -> None:
    text = GOOD.replace("kind: function", "kind: functon").replace("    expect: 3", "    expect: 3\n    hiden: true")
    found = problems(tmp_path, text)
    assert len(found) == 2
    assert "unknown kind 'functon'; known kinds: function, program, predict" in found[0]
    assert "did you mean 'hidden'?" in found[1]


def test_missing_required_key(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD.replace("title: Add\n", "")) == [
        "add.yaml:1:1: missing key 'title': every exercise needs title"]


def test_function_exercise_needs_an_entry(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD.replace("entry: add\n", "")) == [
        "add.yaml:1:1: missing key 'entry': a function exercise names the function or class to define"]


def test_invalid_yaml_names_the_position(tmp_path: Path) -> None:
    (message,) = problems(tmp_path, GOOD + "  - name: [unclosed\n")
    assert message.startswith("add.yaml:10:") and "invalid YAML" in message


def test_unknown_checker_lists_the_known_ones(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expect: 3\n    checker: unorderd")
    assert problems(tmp_path, text) == [
        "add.yaml:9:14: unknown checker 'unorderd' (did you mean 'unordered'?); known checkers: close, output, unordered, value"]


def test_checker_args_are_checked_against_the_checker(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expect: 3\n    checker: {name: value, args: {tolerance: 1}}")
    (message,) = problems(tmp_path, text)
    assert message.startswith("add.yaml:9:") and "checker 'value' does not take these args" in message


def test_a_call_that_prints_must_compare_output(tmp_path: Path) -> None:
    text = GOOD.replace("call: add(1, 2)", "call: print(add(1, 2))")
    assert problems(tmp_path, text) == [
        "add.yaml:7:11: test 'add(1, 2)' prints and returns None: add 'compare: output'"]


def test_a_call_must_be_an_expression(tmp_path: Path) -> None:
    text = GOOD.replace("call: add(1, 2)", "call: add(1, 2")
    (message,) = problems(tmp_path, text)
    assert message.startswith("add.yaml:7:11: the call of test 'add(1, 2)' is not a Python expression")


def test_limits_must_be_positive_numbers(tmp_path: Path) -> None:
    found = problems(tmp_path, GOOD + "limits: {cpu: -1, memroy: 5}\n")
    assert found == [
        "add.yaml:9:15: limits: cpu must be a positive number, not -1.0",
        "add.yaml:9:19: unknown key 'memroy' in limits (did you mean 'memory'?)",
    ]


def test_booleans_are_checked(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expect: 3\n    hidden: maybe")
    assert problems(tmp_path, text) == ["add.yaml:9:13: hidden must be true or false, not 'maybe'"]


def test_test_names_are_unique(tmp_path: Path) -> None:
    text = GOOD + "  - name: add(1, 2)\n    call: add(2, 1)\n"
    assert problems(tmp_path, text) == ["add.yaml:9:5: two tests are named 'add(1, 2)': names must be unique"]


def test_stdin_belongs_to_programs(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expect: 3\n    stdin: '1 2'")
    assert problems(tmp_path, text) == [
        "add.yaml:9:12: 'stdin' is for program exercises; this is a function exercise"]


def test_expect_literal_must_be_a_literal(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expect_literal: 'f(x)'")
    assert problems(tmp_path, text) == [
        "add.yaml:8:21: expect_literal of test 'add(1, 2)' is not a Python literal: 'f(x)'"]


def test_expect_literal_gives_tuples(tmp_path: Path) -> None:
    path = tmp_path / "add.yaml"
    path.write_text(GOOD.replace("    expect: 3", "    expect_literal: '(1, 2)'"))
    assert load_exercise(path).tests[0].expect == (1, 2)


def test_expect_may_be_left_to_the_reference(tmp_path: Path) -> None:
    path = tmp_path / "add.yaml"
    path.write_text(GOOD.replace("    expect: 3\n", ""))
    assert load_exercise(path).tests[0].expect is MISSING


def test_output_expectations_keep_the_text_as_written(tmp_path: Path) -> None:
    path = tmp_path / "add.yaml"
    path.write_text(GOOD.replace("call: add(1, 2)", "call: print(add(1, 2))\n    compare: output").replace("expect: 3", "expect: 3.0"))
    assert load_exercise(path).tests[0].expect == "3.0"


def test_predict_needs_a_snippet(tmp_path: Path) -> None:
    text = "title: P\nkind: predict\nstatement: s\ntests:\n  - name: Output\n    expect: '1'\n"
    assert problems(tmp_path, text, "p") == [
        "p.yaml:1:1: missing key 'snippet': a predict exercise needs the code whose output is predicted"]


def test_rules_must_be_python_names(tmp_path: Path) -> None:
    text = GOOD + "forbid: ['import os']\n"
    assert problems(tmp_path, text) == [
        "add.yaml:9:10: forbid rule 'import os' is not a Python name (write e.g. itertools or permutations)"]


def test_code_fields_must_parse(tmp_path: Path) -> None:
    (message,) = problems(tmp_path, GOOD + "starter: 'def add(:'\n")
    assert message.startswith("add.yaml:9:10: starter is not valid Python")


def test_file_name_is_the_id(tmp_path: Path) -> None:
    (message,) = problems(tmp_path, GOOD, "Add_Numbers")
    assert "the file name 'Add_Numbers' is the exercise id" in message


def test_empty_file(tmp_path: Path) -> None:
    assert problems(tmp_path, "") == [
        "add.yaml:1:1: the file is empty; an exercise needs title, kind, statement and tests"]
