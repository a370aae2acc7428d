"""What a student reads through `grader check`: what a visible test printed, in every report format a
check writes (never for a hidden test), a missing function's closest definition, and how a wrong signature
differs from the call the test makes."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli

SPEC = """\
title: Scale
kind: function
entry: scale
statement: s
tests:
  - name: doubles
    call: scale([1, 2], 2)
    expect: [2, 4]
  - name: triples
    call: scale([1], 3)
    expect: [3]
  - name: secret
    call: scale([5], 7)
    expect: [35]
    hidden: true
"""
PRINTING = """\
import sys


def scale(items, factor):
    print("scaling", items, "by", factor)
    print("SECRET-INPUT", factor, file=sys.stderr)
    return [item * factor for item in items] if factor != 3 else []
"""


def check(course, code: str, *args: str):  # noqa: ANN001, ANN201
    course.write("scale", SPEC)
    path = course.submission("scale.py", code)
    return run_cli("check", "scale", path, "--exercises", course.exercises, "--all", *args)


def test_the_json_report_carries_what_each_visible_test_printed_and_nothing_of_a_hidden_one(course) -> None:  # noqa: ANN001
    report = json.loads(check(course, PRINTING, "--format", "json").stdout)
    tests = {t["name"]: t for t in report["tests"]}
    assert tests["doubles"]["stdout"] == "scaling [1, 2] by 2\n"
    assert tests["doubles"]["stderr"] == "SECRET-INPUT 2\n"
    assert tests["triples"]["stdout"] == "scaling [1] by 3\n" and tests["triples"]["verdict"] == "wrong_answer"
    assert "stdout" not in tests["secret"] and "stderr" not in tests["secret"]
    assert "SECRET-INPUT 7" not in json.dumps(report)


def test_a_quiet_test_carries_no_captured_fields(course) -> None:  # noqa: ANN001
    report = json.loads(check(course, "def scale(items, factor):\n    return [i * factor for i in items]\n",
                              "--format", "json").stdout)
    assert all("stdout" not in t and "stderr" not in t for t in report["tests"])


def test_the_terminal_shows_what_passed_and_failed_tests_printed(course) -> None:  # noqa: ANN001
    shown = check(course, PRINTING).stdout
    assert "scaling [1, 2] by 2" in shown and "scaling [1] by 3" in shown and "printed" in shown
    assert "SECRET-INPUT 7" not in shown


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn", "github-classroom"])
def test_each_platform_format_carries_a_visible_tests_print_and_never_a_hidden_ones(course, platform: str) -> None:  # noqa: ANN001
    shown = check(course, PRINTING, "--format", platform).stdout
    assert "scaling [1] by 3" in shown, shown
    assert "SECRET-INPUT 7" not in shown


def test_a_misnamed_function_names_the_closest_definition(course) -> None:  # noqa: ANN001
    report = json.loads(check(course, "def Scale(items, factor):\n    return []\n", "--format", "json").stdout)
    feedback = report["tests"][0]["feedback"]
    assert "the file defines no scale; did you mean Scale?" in feedback, feedback
    camel = json.loads(check(course, "def scale_list(items, factor):\n    return []\n\n\ndef helper():\n"
                                     "    pass\n", "--format", "json").stdout)
    assert "did you mean scale_list?" in camel["tests"][0]["feedback"]


def test_a_wrong_signature_names_the_call_and_the_parameters_the_file_takes(course) -> None:  # noqa: ANN001
    report = json.loads(check(course, "def scale(items):\n    return items\n", "--format", "json").stdout)
    tests = {t["name"]: t for t in report["tests"]}
    feedback = tests["doubles"]["feedback"]
    assert "the test calls scale([1, 2], 2), and the file defines scale(items)" in feedback, feedback
    assert tests["secret"]["feedback"] == "TypeError"  # a hidden test's call is never shown
