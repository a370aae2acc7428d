"""A course's time limits are part of the course: `grader validate` writes them into it, every bundle carries
them, and every entry point grades under them, whatever this machine's cache holds."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.authoring.conftest import BURN, PLAIN, SQUARES, CourseFolder
from tests.conftest import ROOT, run_cli

# Right on every test, and 10 s of CPU on the big one: far past any limit calibration gives it.
SLOW_ON_THE_BIG_ONE = """\
import time


def square(n):
    if n > 1000:
        end = time.process_time() + 10
        while time.process_time() < end:
            pass
    return n * n
"""


def graded(*args: object, cache: Path, cwd: Path | None = None) -> dict[str, tuple[str, float, str]]:
    """{test: (verdict, CPU limit, where the limit came from)} of a `grader check --format json --all`."""
    result = run_cli("check", *args, "--format", "json", "--all", cwd=cwd, env={"GRADER_CACHE": str(cache)})
    assert result.returncode in (0, 1), result.stdout + result.stderr
    return {t["name"]: (t["verdict"], t["limit_seconds"], t["limit_source"]) for t in json.loads(result.stdout)["tests"]}


def calibrated_course(course: CourseFolder, cache: Path) -> None:
    course.write("squares", SQUARES)
    course.reference("squares", "plain.py", PLAIN)
    course.reference("squares", "slow.py", BURN.format(seconds=0.15))  # 3 x 0.15 s: over the 0.3 s floor
    validated = run_cli("validate", "--exercises", course.exercises, env={"GRADER_CACHE": str(cache)})
    assert validated.returncode == 0, validated.stdout + validated.stderr


def test_the_same_files_get_the_same_limits_and_verdicts_from_every_cache_and_every_bundle(
        course: CourseFolder, tmp_path: Path) -> None:
    calibrated_course(course, tmp_path / "instructor-cache")
    kept = course.exercises / ".calibration" / "squares.json"
    assert kept.is_file(), "validate writes the limits into the course"
    submission = course.submission("mine.py", SLOW_ON_THE_BIG_ONE)

    empty_cache = graded("squares", submission, "--exercises", course.exercises, cache=tmp_path / "empty")
    assert [verdict for verdict, _, _ in empty_cache.values()] == ["passed", "passed", "timeout"]
    assert all(0.3 <= limit < 2.0 and "calibrated by the course" in source
               for _, limit, source in empty_cache.values()), empty_cache

    # Another copy of the course, measured again with a cache of its own: that cache changes no limit here.
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(course.root / "exercises", elsewhere / "exercises")
    shutil.copytree(course.root / "reference", elsewhere / "reference")
    (elsewhere / "reference" / "squares" / "accepted" / "slow.py").write_text(BURN.format(seconds=0.3))
    other_cache = tmp_path / "other-cache"
    assert run_cli("validate", "--recalibrate", "--exercises", elsewhere / "exercises",
                   env={"GRADER_CACHE": str(other_cache)}).returncode == 0
    assert graded("squares", submission, "--exercises", course.exercises, cache=other_cache) == empty_cache

    # The student bundle: a course of its own, carrying the visible tests' limits.
    bundle = tmp_path / "bundle"
    assert run_cli("export", "--student", bundle, "--exercises", course.exercises).returncode == 0
    from_bundle = graded("squares", submission, cache=tmp_path / "student-cache", cwd=bundle)
    assert from_bundle == {"square(3)": empty_cache["square(3)"]}

    # The Gradescope bundle: its setup validates (here with Gradescope's empty cache) and measures nothing.
    zip_path = tmp_path / "autograder.zip"
    assert run_cli("export", "--gradescope", zip_path, "--exercises", course.exercises).returncode == 0
    source = tmp_path / "autograder" / "source"
    source.mkdir(parents=True)
    subprocess.run(["unzip", "-q", zip_path, "-d", source], check=True)
    gradescope_cache = tmp_path / "gradescope-cache"
    set_up = run_cli("validate", "--exercises", source / "exercises", env={"GRADER_CACHE": str(gradescope_cache)})
    assert set_up.returncode == 0, set_up.stdout + set_up.stderr
    assert json.loads((source / "exercises" / ".calibration" / "squares.json").read_text()) == json.loads(kept.read_text())
    assert graded("squares", submission, "--exercises", source / "exercises", cache=gradescope_cache) == empty_cache
    (tmp_path / "autograder" / "submission").mkdir()
    shutil.copy(submission, tmp_path / "autograder" / "submission" / "squares.py")
    run = run_cli("gradescope-run", env={"GRADER_CACHE": str(gradescope_cache),
                                         "GRADER_AUTOGRADER_ROOT": str(tmp_path / "autograder")})
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((tmp_path / "autograder" / "results" / "results.json").read_text())
    assert results["extra_data"]["exercises"]["squares"]["score"] == 2.0  # the big test timed out there too


def test_a_much_slower_machine_scales_the_limits_by_a_measured_factor_and_says_so(
        course: CourseFolder, tmp_path: Path) -> None:
    calibrated_course(course, tmp_path / "cache")
    kept = course.exercises / ".calibration" / "squares.json"
    data = json.loads(kept.read_text())
    limits = {name: timing["limit"] for name, timing in data["tests"].items()}
    data["speed"] = data["speed"] / 4  # the machine that calibrated ran the probe four times as fast
    kept.write_text(json.dumps(data))
    tests = graded("squares", course.submission("mine.py", PLAIN), "--exercises", course.exercises,
                   cache=tmp_path / "cache")
    for name, (verdict, limit, source) in tests.items():
        factor = float(source.split(", x")[1].split(":")[0])
        assert 3.0 <= factor <= 6.0, source
        assert limit >= limits[name] * factor - 0.01
        assert f"this machine measured {factor:g} times slower" in source
        assert verdict == "passed"


def test_the_bundled_course_ships_its_calibration(tmp_path: Path) -> None:
    for spec in sorted((ROOT / "exercises").glob("*.yaml")):
        # A prediction runs no timed code; a variant's limits are the spec's (docs/variants.md).
        if spec.stem != "predict-attacked" and "\nparams:" not in spec.read_text(encoding="utf-8"):
            assert (ROOT / "exercises" / ".calibration" / f"{spec.stem}.json").is_file(), spec.stem
    shown = run_cli("show", "count-queens", env={"GRADER_CACHE": str(tmp_path / "cache")}, cwd=tmp_path)
    assert "calibrated by the course" in " ".join(shown.stdout.split())


def test_a_test_changed_since_the_calibration_says_its_limit_is_the_default_until_validate(
        course: CourseFolder, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    calibrated_course(course, cache)
    course.write("squares", SQUARES.replace("call: square(-2)", "call: square(-3)"))
    tests = graded("squares", course.submission("mine.py", PLAIN), "--exercises", course.exercises, cache=cache)
    assert tests["square(-2)"][1:] == (2.0, "the default: the course's calibration measured other tests or "
                                             "references (grader validate measures again)")
    assert "calibrated by the course" in tests["square(3)"][2]
    assert run_cli("validate", "--exercises", course.exercises, env={"GRADER_CACHE": str(cache)}).returncode == 0
    again = graded("squares", course.submission("mine.py", PLAIN), "--exercises", course.exercises, cache=cache)
    assert all("calibrated by the course" in source for _, _, source in again.values())
