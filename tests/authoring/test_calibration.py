"""Time limits from the references: measured by `grader calibrate`/`validate`, written into the course
(exercises/.calibration/), applied by every command that loads the exercise, and never measured by `grader check`."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from grader import calibration, machine_speed
from grader.calibration import calibration_key, course_file
from grader.model import CalibrationRule
from grader.spec import load_exercise
from tests.authoring.conftest import BURN, PLAIN, SQUARES, CourseFolder, flat
from tests.conftest import run_cli


def limits_seen_by_check(course: CourseFolder, submission: Path) -> dict[str, float]:
    report = run_cli("check", "squares", submission, "--format", "json", "--exercises", course.exercises).json()
    return {test["name"]: test["limit_seconds"] for test in report["tests"]}


def calibration_files(cache: Path) -> list[Path]:
    """The course's calibration files (the course of the `course` fixture, beside `cache`)."""
    return sorted((cache.parent / "exercises" / ".calibration").glob("*.json"))


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of this test's own, so that 'measured now' and 'cached' mean this test's runs."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("GRADER_CACHE", str(folder))
    return folder


def test_limit_is_the_multiplier_times_the_slowest_accepted_reference_and_grading_uses_it(course: CourseFolder, cache) -> None:
    course.write("squares", SQUARES.replace("calibration: {floor: 0.3}", "calibration: {floor: 0.1, multiplier: 3}"))
    course.reference("squares", "fast.py", PLAIN)
    course.reference("squares", "slow.py", BURN.format(seconds=0.15))
    submission = course.submission("mine.py", PLAIN)
    assert set(limits_seen_by_check(course, submission).values()) == {2.0}  # not calibrated yet: the default
    assert calibration_files(cache) == []  # and `check` did not measure anything

    result = run_cli("calibrate", "--exercises", course.exercises)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "measured now" in result.stdout
    data = json.loads(calibration_files(cache)[0].read_text())
    timing = data["tests"]["square(3)"]
    assert timing["slowest_reference"] == "slow.py"
    assert len(timing["samples"]["slow.py"]) == 3  # 3 x 0.15 s is over the floor: repeated, the minimum kept
    assert timing["slowest_seconds"] == min(timing["samples"]["slow.py"])
    assert timing["limit"] == pytest.approx(3 * timing["slowest_seconds"], abs=0.011)
    assert timing["source"] == "calibrated"
    assert 0.44 <= timing["limit"] <= 0.6

    limits = limits_seen_by_check(course, submission)
    assert limits["square(3)"] == timing["limit"]

    again = run_cli("calibrate", "--exercises", course.exercises)
    assert "cached, measured" in again.stdout and len(calibration_files(cache)) == 1
    assert not list(cache.glob("calibration-*")), "the cache holds no limit"


def test_fast_references_get_the_floor_without_repeated_runs(squares: CourseFolder, cache) -> None:
    assert run_cli("calibrate", "--exercises", squares.exercises).returncode == 0
    data = json.loads(calibration_files(cache)[0].read_text())
    for timing in data["tests"].values():
        assert (timing["limit"], timing["source"]) == (0.3, "floor")
        assert all(len(runs) == 1 for runs in timing["samples"].values())  # more runs could not change it


def test_a_written_cpu_limit_overrides_calibration(squares: CourseFolder, cache) -> None:
    squares.write("squares", SQUARES.replace("    big: true\n", "    big: true\n    limits: {cpu: 0.7}\n"))
    assert run_cli("calibrate", "--exercises", squares.exercises).returncode == 0
    limits = limits_seen_by_check(squares, squares.submission("mine.py", PLAIN))
    assert limits == {"square(3)": 0.3, "square(-2)": 0.3, "square(10**6)": 0.7}


def test_an_exercise_level_cpu_limit_applies_to_every_test(squares: CourseFolder, cache) -> None:
    squares.write("squares", SQUARES.replace("calibration: {floor: 0.3}\n", "limits: {cpu: 0.8}\n"))
    assert run_cli("calibrate", "--exercises", squares.exercises).returncode == 0
    limits = limits_seen_by_check(squares, squares.submission("mine.py", PLAIN))
    assert set(limits.values()) == {0.8}


def test_changing_a_reference_or_a_test_recalibrates_and_a_statement_typo_does_not(squares: CourseFolder, cache) -> None:
    def calibrate() -> str:
        result = run_cli("calibrate", "--exercises", squares.exercises)
        assert result.returncode == 0, result.stderr
        return "measured now" if "measured now" in result.stdout else "cached"

    assert calibrate() == "measured now"
    squares.write("squares", SQUARES.replace("returns n * n", "returns n times n"))
    assert calibrate() == "cached"
    squares.reference("squares", "plain.py", PLAIN + "# a comment changes the content\n")
    assert calibrate() == "measured now"
    squares.write("squares", SQUARES.replace("square(10**6)", "square(10**7)"))
    assert calibrate() == "measured now"
    assert len(calibration_files(cache)) == 1  # one calibration per exercise: the course's


def test_the_key_is_the_courses_content_never_the_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "exercises" / "squares.yaml"
    path.parent.mkdir()
    path.write_text(SQUARES)
    exercise = load_exercise(path)
    key = calibration_key(exercise)
    assert calibration_key(exercise) == key
    monkeypatch.setattr(calibration, "machine", lambda: "another host / another CPU / 2 CPUs")
    monkeypatch.setattr(machine_speed, "cpu_model", lambda: "another CPU")
    monkeypatch.setattr(machine_speed, "interpreter", lambda: "/usr/bin/python3.12 (1 bytes, mtime 1)")
    assert calibration_key(exercise) == key  # a limit is the course's: the machine only scales it
    monkeypatch.undo()
    assert calibration_key(replace(exercise, calibration=CalibrationRule(multiplier=4))) != key
    assert course_file(exercise) == tmp_path / "exercises" / ".calibration" / "squares.json"


def test_an_accepted_reference_that_fails_cannot_be_timed(squares: CourseFolder, cache) -> None:
    squares.reference("squares", "broken.py", "def square(n):\n    return n / 0\n")
    result = run_cli("calibrate", "--exercises", squares.exercises)
    assert result.returncode == 1
    assert ("✗ squares: the accepted reference broken.py cannot be timed on test 'square(3)': runtime_error: "
            "ZeroDivisionError: division by zero") in flat(result.stdout)
    assert calibration_files(cache) == []
    validated = run_cli("validate", "--exercises", squares.exercises)
    assert validated.returncode == 1
    assert re.search(r"✗ cannot set the time limits: the accepted reference broken\.py cannot be timed",
                     validated.stdout)
