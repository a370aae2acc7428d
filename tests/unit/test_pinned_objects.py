"""Objects compared by their own ==: `grader validate` notes an `equals` step between two objects of the
reference's classes when nothing in its test pins them down, and the shipped unittest port pins its
clocks, so that an __eq__ that always answers True no longer passes its equality tests."""

from __future__ import annotations

import json

from tests.conftest import ROOT, run_cli

PORT = ROOT / "examples" / "unittest-port"
SPEC = """\
title: Counter
kind: function
entry: Tally
statement: s
tests:
  - name: adding counts
    steps:
      - {do: "Tally(2) + Tally(3)", equals: "Tally(5)"}
PIN"""
REFERENCE = """\
class Tally:
    def __init__(self, count):
        self.count = count

    def __add__(self, other):
        return Tally(self.count + other.count)

    def __eq__(self, other):
        return isinstance(other, Tally) and self.count == other.count
"""


def validated(course, pin: str) -> str:  # noqa: ANN001
    course.write("tally", SPEC.replace("PIN", pin))
    course.reference("tally", "plain.py", REFERENCE)
    result = run_cli("validate", "--exercises", course.exercises, "tally")
    assert result.returncode == 0, result.stdout + result.stderr
    return " ".join(result.stdout.split())


def test_validate_notes_an_equals_step_nothing_pins_down(course) -> None:  # noqa: ANN001
    shown = validated(course, "")
    assert "test 'adding counts'" in shown and "Tally's own ==" in shown and "always answers True" in shown


def test_a_step_that_pins_the_objects_with_plain_data_silences_the_note(course) -> None:  # noqa: ANN001
    pin = '      - {do: "(Tally(2) + Tally(3)).count", expect_literal: "5"}\n'
    assert "own ==" not in validated(course, pin)


def test_the_ports_clock_whose_eq_always_answers_true_fails_its_equality_tests(tmp_path) -> None:  # noqa: ANN001
    honest = (PORT / "reference" / "clock" / "accepted" / "minutes.py").read_text()
    always = honest.replace("return isinstance(other, Clock) and self.minutes == other.minutes", "return True")
    assert always != honest
    path = tmp_path / "clock.py"
    path.write_text(always)
    result = run_cli("check", "--exercises", PORT / "exercises", "clock", path, "--format", "json")
    tests = {t["name"]: t["verdict"] for t in json.loads(result.stdout)["tests"]}
    assert tests["clocks with the same time are equal"] == "wrong_answer", tests
    assert tests["clocks a minute apart are not equal"] == "wrong_answer", tests
    assert sum(verdict == "passed" for verdict in tests.values()) <= 5


def test_the_port_validates_without_a_note_on_its_equals_steps() -> None:
    result = run_cli("validate", "--exercises", PORT / "exercises", "clock")
    assert result.returncode == 0 and "own ==" not in result.stdout, result.stdout
