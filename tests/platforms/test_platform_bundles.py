"""What every platform bundle carries, found from the specs (checker files, generators.py), and what it
refuses; PrairieLearn's bundle and `grader prairielearn-run` as PrairieLearn runs a job (the job's folder,
results.json written by the grader itself, exit 0 also when grading fails)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import EXERCISES, REFERENCE, run_cli
from tests.platforms.schemas import problems


@pytest.fixture
def copied_course(tmp_path: Path) -> Path:
    """any-queens (a checker file) and count-queens, with their references, in a course of their own."""
    for folder in ("exercises", "reference"):
        (tmp_path / folder).mkdir()
    for exercise_id in ("any-queens", "count-queens"):
        shutil.copyfile(EXERCISES / f"{exercise_id}.yaml", tmp_path / "exercises" / f"{exercise_id}.yaml")
        shutil.copytree(REFERENCE / exercise_id, tmp_path / "reference" / exercise_id)
    shutil.copyfile(EXERCISES / "any_queens_check.py", tmp_path / "exercises" / "any_queens_check.py")
    return tmp_path / "exercises"


def test_every_bundle_carries_the_checker_file_a_spec_names(copied_course: Path, tmp_path: Path) -> None:
    zip_path, pl, gc = tmp_path / "autograder.zip", tmp_path / "pl", tmp_path / "gc"
    for target, out in (("--gradescope", zip_path), ("--prairielearn", pl), ("--github-classroom", gc)):
        done = run_cli("export", target, out, "--exercises", copied_course)
        assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(zip_path) as archive:
        assert "exercises/any_queens_check.py" in archive.namelist()
    assert (pl / "exercises" / "any_queens_check.py").is_file() and (gc / "exercises" / "any_queens_check.py").is_file()
    assert [p.name for p in (pl / "dist").iterdir()] == ["yaml_grader-0.1.0-py3-none-any.whl"]
    assert [p.name for p in (gc / ".github" / "grader").iterdir()] == ["yaml_grader-0.1.0-py3-none-any.whl"]


def test_a_bundle_is_refused_when_a_spec_names_a_file_that_is_not_there(copied_course: Path, tmp_path: Path) -> None:
    # Loaded once (and so cached), then the checker file goes: the bundle must not be written without it.
    assert run_cli("validate", "--exercises", copied_course, "any-queens").returncode == 0
    (copied_course / "any_queens_check.py").unlink()
    for target, out in (("--gradescope", tmp_path / "a.zip"), ("--prairielearn", tmp_path / "pl"),
                        ("--github-classroom", tmp_path / "gc")):
        done = run_cli("export", target, out, "--exercises", copied_course, "any-queens")
        assert done.returncode in (2, 3), done.stderr
        assert "any_queens_check.py" in done.stderr and "Traceback" not in done.stderr
        assert not Path(out).exists() or not any(Path(out).rglob("*.yaml"))


def test_the_prairielearn_bundle_is_a_build_context_with_grading_options(tmp_path: Path) -> None:
    out = tmp_path / "grader-image"
    assert run_cli("export", "--prairielearn", out, "count-queens").returncode == 0
    dockerfile = (out / "Dockerfile").read_text()
    assert "setup.sh" in dockerfile and "pip install" not in dockerfile  # the wheel, installed by setup.sh
    readme = (out / "README.md").read_text()
    options = json.loads(readme.split("```json\n")[1].split("```")[0])["externalGradingOptions"]
    assert options["entrypoint"] == "/grader/grade count-queens" and ">" not in options["entrypoint"]
    assert (out / "grade").stat().st_mode & 0o111
    refused = run_cli("export", "--prairielearn", out, "count-queens")
    assert refused.returncode == 2 and "--force" in refused.stderr


def job(root: Path, files: dict[str, str]) -> Path:
    (root / "student").mkdir(parents=True)
    for name, text in files.items():
        (root / "student" / name).write_text(text)
    return root


@pytest.mark.parametrize(("files", "gradable", "score"), [
    ({"count-queens.py": (REFERENCE / "count-queens" / "accepted" / "plain_sets.py").read_text()}, True, 1.0),
    ({"count_queens.py": "def count_queens(n):\n    return -1\n"}, True, 0.0),  # matched as a batch matches
    ({"count-queens.py": "def count_queens(n:\n"}, False, None),
    ({}, True, 0.0),
])
def test_prairielearn_run_writes_results_json_itself_and_exits_0(tmp_path: Path, files: dict[str, str],
                                                                  gradable: bool, score: float | None) -> None:
    root = job(tmp_path / "grade", files)
    done = run_cli("prairielearn-run", "count-queens", "--root", root, "--exercises", EXERCISES)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert problems("prairielearn-results", results) == []
    assert results["gradable"] is gradable and results.get("score") == score
    if not files:
        assert "count-queens.py" in json.dumps(results["tests"])  # what to hand in
    if score == 1.0:
        assert "uid" in results["isolation"] or "rlimits" in results["isolation"]


def test_prairielearn_run_that_cannot_grade_is_not_gradable_and_still_exits_0(tmp_path: Path) -> None:
    root = job(tmp_path / "grade", {"x.py": "x = 1\n"})
    done = run_cli("prairielearn-run", "no-such-exercise", "--root", root, "--exercises", EXERCISES)
    assert done.returncode == 0 and "no exercise 'no-such-exercise'" in done.stdout
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["gradable"] is False and "not a problem with your code" in results["message"]
    assert problems("prairielearn-results", results) == []


def test_prairielearn_run_is_started_without_a_shell_from_the_entrypoint_line(tmp_path: Path) -> None:
    """As the grader host does: the entrypoint split on spaces, executed directly, with a `grader` on PATH."""
    out = tmp_path / "grader-image"
    assert run_cli("export", "--prairielearn", out, "count-queens").returncode == 0
    script = (out / "grade").read_text().replace("/usr/local/bin/grader", "grader")
    (out / "grade").write_text(script)
    root = job(tmp_path / "grade", {"count-queens.py": "def count_queens(n):\n    return -1\n"})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "grader").write_text(f"#!/bin/sh\nexec {sys.executable} -m grader \"$@\"\n")
    (bin_dir / "grader").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "GRADER_EXERCISES": str(EXERCISES)}
    done = subprocess.run([str(out / "grade"), "count-queens", "--root", str(root)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads((root / "results" / "results.json").read_text())["score"] == 0.0
