"""Every limit read from outside (a spec, a course's calibration file, the cache, a command line) passes one
check: a finite number, in its documented range; a refusal names the file, the key and the line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from grader.calibration import CALIBRATION_VERSION, setup_key
from grader.limits import BOUNDS, LimitError, checked, json_line
from grader.spec import load_exercise
from tests.conftest import run_cli

HOSTILE = [math.nan, math.inf, -math.inf, -5, 0, 1e308, True, "2", None, [1], {"a": 1}]


@pytest.mark.parametrize("key", sorted(BOUNDS))
@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_no_limit_takes_a_value_that_is_not_a_finite_number_in_its_range(key: str, value: object) -> None:
    if key in ("multiplier", "speed") and value in (0, -5) and not isinstance(value, bool):
        value = -5.0  # 0 is a speed not measured; a multiplier's least is 1: -5 is out of both
    with pytest.raises(LimitError, match="must be a"):
        checked(key, value)


def test_a_limit_in_its_range_is_taken_as_it_is() -> None:
    assert checked("cpu", 1.5) == 1.5 and checked("memory", 512) == 512.0 and checked("speed", 0) == 0.0
    assert checked("cpu", BOUNDS["cpu"].most) == BOUNDS["cpu"].most
    with pytest.raises(LimitError):
        checked("memory", 1.5)  # MiB are whole


def test_a_key_is_found_at_its_line_in_a_json_file() -> None:
    text = json.dumps({"tests": {"limit": 9, "t1": {"limit": 1}}, "speed": 2}, indent=1)
    assert json_line(text, ("tests", "t1", "limit")) == 5
    assert json_line(text, ("speed",)) == 8
    assert json_line(text, ("nowhere",)) == 1


CALCULATE = """\
title: Add
kind: function
entry: add
statement: Add two numbers.
tests:
  - name: one and two
    call: add(1, 2)
    expect: 3
  - name: two and two
    call: add(2, 2)
    expect: 4
"""


def calibrated(tmp_path: Path, limit: object, speed: object = 0.0) -> Path:
    """A course whose calibration file gives every test `limit`, as a hand or a damaged disk wrote it."""
    exercises = tmp_path / "exercises"
    exercises.mkdir()
    spec = exercises / "add.yaml"
    spec.write_text(CALCULATE)
    exercise = load_exercise(spec)
    timing = {"limit": limit, "source": "calibrated", "slowest_reference": "plain.py", "slowest_seconds": 0.1,
              "samples": {}, "key": ""}
    data = {"version": CALIBRATION_VERSION, "exercise": "add", "key": setup_key(exercise), "machine": "m / cpu / 2",
            "python": "3", "settings": {"floor": 1.0, "multiplier": 3.0},
            "tests": {t.name: dict(timing, test=t.name) for t in exercise.tests}, "speed": speed, "speed_probe": "2"}
    (exercises / ".calibration").mkdir()
    (exercises / ".calibration" / "add.json").write_text(json.dumps(data, indent=1))  # NaN as Python writes it
    (tmp_path / "add.py").write_text("def add(a, b):\n    return a + b\n")
    return exercises


@pytest.mark.parametrize("limit", [math.nan, -5, "fast", 1e9], ids=["nan", "negative", "text", "huge"])
def test_a_calibration_file_with_a_bad_limit_is_a_spec_error_naming_file_key_and_line(
        tmp_path: Path, limit: object) -> None:
    exercises = calibrated(tmp_path, limit)
    result = run_cli("check", "add", tmp_path / "add.py", "--exercises", exercises,
                     env={"GRADER_CACHE": str(tmp_path / "cache")})
    assert result.returncode == 3, result.stdout + result.stderr  # never 4, never a right answer scored 0
    where = exercises / ".calibration" / "add.json"
    assert f"{where}:" in result.stderr and "calibration: tests.one and two.limit must be a number of seconds" \
        in result.stderr and "grader validate --recalibrate" in result.stderr, result.stderr
    line = int(result.stderr.split(f"{where}:")[1].split(":")[0])
    assert '"limit"' in where.read_text().splitlines()[line - 1]


def test_a_calibration_file_in_range_gives_its_limits(tmp_path: Path) -> None:
    exercises = calibrated(tmp_path, 1.5)
    result = run_cli("check", "add", tmp_path / "add.py", "--exercises", exercises, "--format", "json",
                     env={"GRADER_CACHE": str(tmp_path / "cache")})
    assert result.returncode == 0, result.stderr
    assert {t["limit_seconds"] for t in json.loads(result.stdout)["tests"]} == {1.5}


def test_a_damaged_speed_in_the_cache_is_measured_again_not_applied(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.machine_speed import speed

    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    probes: list[float] = []

    def probe() -> float:
        probes.append(0.25)
        return 0.25

    assert speed(probe) == 0.25  # measured, then kept
    kept = next((tmp_path / "cache").glob("speed-*.json"))
    assert speed(probe) == 0.25 and len(probes) == 1  # read from the cache
    for damaged in ("NaN", "-5", "1e300", '"fast"'):
        kept.write_text(f'{{"seconds": {damaged}}}')
        assert speed(probe) == 0.25
    assert len(probes) == 5


@pytest.mark.parametrize("value", ["nan", "-5", "1e99"])
def test_a_bad_wait_on_the_command_line_is_a_usage_error(tmp_path: Path, value: str) -> None:
    result = run_cli("submit", "add", tmp_path / "add.py", "--server", "http://127.0.0.1:9", "--token", "gt_x",
                     "--timeout", value)
    assert result.returncode == 2 and "usage:" in result.stderr and "--timeout" in result.stderr, result.stderr
