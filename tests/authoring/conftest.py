"""Throwaway courses for the authoring commands: tiny exercises whose references run in milliseconds, with
CPU limits of a fraction of a second so that timeouts are quick."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import pytest


class CourseFolder(Protocol):
    """What the `course` fixture of tests/conftest.py gives: a throwaway course folder."""

    root: Path
    exercises: Path

    def write(self, exercise_id: str, text: str) -> Path: ...

    def reference(self, exercise_id: str, name: str, code: str, verdict: str = "accepted") -> Path: ...

    def submission(self, name: str, code: str) -> Path: ...

# An exercise whose limits are calibrated from a 0.3 s floor: fast references get 0.3 s, `while True` is
# stopped at 1.5 x 0.3 x 1.2 = 0.54 s while validating.
SQUARES = """\
title: Squares
kind: function
entry: square
statement: |
  Write `square(n)`, which returns n * n.
starter: |
  def square(n):
      pass
calibration: {floor: 0.3}
tests:
  - name: square(3)
    call: square(3)
    expect: 9
  - name: square(-2)
    call: square(-2)
    hidden: true
  - name: square(10**6)
    call: square(10**6)
    hidden: true
    big: true
"""

PLAIN = "def square(n):\n    return n * n\n"
FAST = "def square(n):\n    return n ** 2\n"
OFF_BY_ONE = "def square(n):\n    return n * (n + 1)\n"
FOREVER = "def square(n):\n    while n > 1000:  # right on small n, endless on the big test\n        pass\n    return n * n\n"
# Burns CPU for `seconds` of its own CPU time, then answers right: timing without noise from the work itself.
BURN = """\
import time


def square(n):
    end = time.process_time() + {seconds}
    while time.process_time() < end:
        pass
    return n * n
"""


def flat(text: str) -> str:
    """Output with its line wrapping and table rules undone, for checks that do not depend on the width."""
    return " ".join(text.replace("│", " ").replace("┃", " ").split())


@pytest.fixture
def squares(course: CourseFolder) -> CourseFolder:
    """A valid course: the exercise, two accepted styles, a wrong answer and a too-slow reference."""
    course.write("squares", SQUARES)
    course.reference("squares", "plain.py", PLAIN)
    course.reference("squares", "fast.py", FAST)
    course.reference("squares", "off_by_one.py", OFF_BY_ONE, "wrong_answer")
    course.reference("squares", "forever.py", FOREVER, "timeout")
    return course
