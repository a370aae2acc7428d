"""A course's environment: declared pinned in grader-course.yaml, built by an explicit command, used by
every submission of the course, named in reports and by `grader doctor`; never built during a check."""

from __future__ import annotations

from pathlib import Path

from grader.environment import Environment, build
from tests.conftest import DATA_COURSE, run_cli

SPEC = "title: t\nkind: function\nentry: f\nstatement: x\ntests:\n  - name: one\n    call: f()\n    expect: 1\n"


def _course(root: Path, environment: str) -> Path:
    (root / "exercises").mkdir(parents=True)
    (root / "exercises" / "e.yaml").write_text(SPEC)
    (root / "grader-course.yaml").write_text(f"title: T\n{environment}")
    return root / "exercises"


def test_an_unpinned_package_is_a_usage_error_naming_the_file_and_line(tmp_path: Path) -> None:
    exercises = _course(tmp_path, "environment:\n  packages: [numpy, pandas==3.1.1]\n")
    result = run_cli("env", "show", "--exercises", exercises)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{tmp_path / 'grader-course.yaml'}:2: key 'environment': not pinned to one version: numpy" in result.stderr
    assert "Traceback" not in result.stderr
    missing = _course(tmp_path / "other", "environment:\n  requirements: nowhere.txt\n")
    result = run_cli("env", "show", "--exercises", missing)
    assert result.returncode == 2 and "cannot read" in result.stderr and "nowhere.txt" in result.stderr


def test_a_check_with_an_unbuilt_environment_says_how_to_build_it_and_downloads_nothing(tmp_path: Path) -> None:
    exercises = _course(tmp_path / "course", "environment:\n  packages: [numpy==2.4.6]\n")
    submission = tmp_path / "f.py"
    submission.write_text("import numpy\ndef f():\n    return 1\n")
    roots = tmp_path / "environments"
    result = run_cli("check", "e", submission, "--format", "json", "--exercises", exercises,
                     env={"GRADER_ENV_DIR": str(roots)})
    report = result.json()
    assert [t["verdict"] for t in report["tests"]] == ["grader_error"]
    assert "is not built on this machine: run `grader env build`" in report["tests"][0]["feedback"]
    assert "numpy==2.4.6" in report["isolation"]  # the report names the environment
    assert not roots.exists() or not any(roots.iterdir())  # nothing was downloaded or built
    shown = run_cli("env", "show", "--exercises", exercises, env={"GRADER_ENV_DIR": str(roots)})
    assert "NOT built (run `grader env build`)" in shown.stdout


def test_the_build_is_keyed_by_its_list_and_reused(tmp_path: Path) -> None:
    exercises = _course(tmp_path / "course", "environment:\n  packages: []\n")
    env = {"GRADER_ENV_DIR": str(tmp_path / "environments")}
    first = run_cli("env", "build", "--exercises", exercises, env=env)
    assert first.returncode == 0, first.stderr
    assert "making a venv from" in first.stdout and "built at" in first.stdout  # progress, visibly
    again = run_cli("env", "build", "--exercises", exercises, env=env)
    assert "already built" in again.stdout
    kept = [p for p in (tmp_path / "environments").iterdir() if not p.name.startswith(".")]
    assert len(kept) == 1 and (kept[0] / "grader-environment.json").is_file()
    assert oct(kept[0].stat().st_mode & 0o777) == "0o755"  # the sandbox's uid reads it; only we write
    same = Environment(("numpy==2.4.6",), tmp_path, "/usr/bin/python3.11")
    assert same.key == Environment(("numpy==2.4.6",), tmp_path / "x", "/usr/bin/python3.11").key
    assert same.key != Environment(("numpy==2.4.5",), tmp_path, "/usr/bin/python3.11").key


def test_a_numpy_submission_runs_under_every_layer_and_the_report_names_it(data_environment) -> None:
    accepted = DATA_COURSE / "reference" / "spread" / "accepted" / "numpy_std.py"
    result = run_cli("check", "spread", accepted, "--format", "json", "--exercises", DATA_COURSE / "exercises")
    report = result.json()
    assert report["verdict"] == "passed", result.stdout
    assert data_environment.name in report["isolation"]
    assert "environment" in report["isolation"] and report["isolation"].startswith("isolation: ")


def test_doctor_names_the_course_environment(data_environment) -> None:
    result = run_cli("doctor", cwd=DATA_COURSE, env={"COLUMNS": "300"})
    assert result.returncode == 0, result.stderr
    assert f"Course environment: {data_environment.name}, built at {data_environment.path}" in result.stdout


def test_the_listed_requirements_are_what_a_bundle_carries(data_environment) -> None:
    result = run_cli("env", "requirements", "--exercises", DATA_COURSE / "exercises")
    assert result.stdout == data_environment.requirements_text()
    assert result.stdout.splitlines() == ["matplotlib==3.11.2", "numpy==2.4.6", "pandas==3.1.1"]
