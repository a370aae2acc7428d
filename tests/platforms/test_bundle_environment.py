"""Every bundle of a course with an environment carries its pinned list (grader-course.yaml naming
requirements.txt, at the bundle's root) and builds it at set-up: Gradescope's and PrairieLearn's setup.sh,
the GitHub Classroom workflow, the student bundle's README. Gradescope's setup.sh is run for real: it
builds the environment with pip from the package index pip is configured with, into a folder of its own,
and a data-course submission is graded from the built bundle; so is the student bundle's first check."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
import yaml

from grader.environment import environment_of_course
from tests.conftest import DATA_COURSE, EXERCISES, run_cli

IDS = ("zscores", "store-totals")  # two of the data course's exercises: the set-up validates them
REFERENCE = DATA_COURSE / "reference"


@pytest.fixture(scope="module")
def requirements() -> str:
    environment = environment_of_course(DATA_COURSE / "exercises")
    assert environment is not None
    return environment.requirements_text()


def _export(flag: str, out: Path, *ids: str, cwd: Path = DATA_COURSE) -> None:
    done = run_cli("export", flag, out, *ids, cwd=cwd, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def _carries_the_list(root: Path, requirements: str) -> None:
    assert (root / "requirements.txt").read_text() == requirements
    course = yaml.safe_load((root / "grader-course.yaml").read_text())
    assert course == {"exercises": "exercises", "environment": {"requirements": "requirements.txt"}}
    environment = environment_of_course(root / "exercises")  # the bundle declares the course's own
    assert environment is not None and environment.requirements_text() == requirements


def test_the_gradescope_zip_carries_the_list_and_its_setup_builds_it(tmp_path: Path, requirements: str) -> None:
    _export("--gradescope", tmp_path / "autograder.zip", *IDS)
    with zipfile.ZipFile(tmp_path / "autograder.zip") as archive:
        archive.extractall(tmp_path / "source")
    _carries_the_list(tmp_path / "source", requirements)
    setup = (tmp_path / "source" / "setup.sh").read_text()
    assert setup.index("grader\" env build --exercises") < setup.index("grader\" validate")


def test_the_prairielearn_context_carries_the_list_and_its_image_builds_it(tmp_path: Path, requirements: str) -> None:
    _export("--prairielearn", tmp_path / "pl", *IDS)
    _carries_the_list(tmp_path / "pl", requirements)
    assert "env build --exercises" in (tmp_path / "pl" / "setup.sh").read_text()
    assert "RUN GRADER_SOURCE=/grader bash /grader/setup.sh" in (tmp_path / "pl" / "Dockerfile").read_text()
    assert "numpy==2.4.6" in (tmp_path / "pl" / "README.md").read_text()


def test_the_classroom_workflow_builds_the_environment_before_any_check(tmp_path: Path, requirements: str) -> None:
    _export("--github-classroom", tmp_path / "repo", *IDS)
    _carries_the_list(tmp_path / "repo", requirements)
    steps = yaml.safe_load((tmp_path / "repo" / ".github" / "workflows" / "classroom.yml").read_text())[
        "jobs"]["run-autograding-tests"]["steps"]
    names = [step.get("name") for step in steps]
    build = names.index("Build the course's environment")
    assert names.index("Install the grader") < build < names.index("zscores")
    assert steps[build]["run"] == "grader env build --exercises exercises"
    install = steps[names.index("Install the grader")]["run"]
    assert install.endswith('[data]" -c requirements.txt')  # the grader's own numpy, at the course's pins
    cache = steps[build - 1]
    assert cache["uses"].startswith("actions/cache@") and "hashFiles('requirements.txt')" in cache["with"]["key"]


def test_a_course_without_an_environment_has_no_list_in_its_bundles(tmp_path: Path) -> None:
    _export("--student", tmp_path / "student", "count-queens", cwd=EXERCISES.parent)
    _export("--github-classroom", tmp_path / "repo", "count-queens", cwd=EXERCISES.parent)
    for root in (tmp_path / "student", tmp_path / "repo"):
        assert not (root / "requirements.txt").exists()
        # The student bundle is a course of its own: its course file names the specs, no environment.
        assert "environment" not in (root / "grader-course.yaml").read_text()
    assert "env build" not in (tmp_path / "repo" / ".github" / "workflows" / "classroom.yml").read_text()
    assert "env build" not in (tmp_path / "student" / "README.md").read_text()


# ---------------------------------------------------------------- set up for real
@pytest.fixture(scope="module")
def environments() -> Path:
    """A fresh environments folder, outside /tmp (a sandbox's /tmp is its own) and readable by the
    sandbox's uid: what the set-up builds into, with pip, from the package index pip is configured with."""
    base = Path("/var/cache/grader") if os.geteuid() == 0 else Path.home() / ".cache"
    base.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bundle-environments-", dir=base))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def gradescope(tmp_path_factory: pytest.TempPathFactory, environments: Path) -> tuple[Path, dict[str, str], str]:
    """The data course's Gradescope zip unpacked and set up as Gradescope does (apt skipped): the
    environment is built by setup.sh, then the exercises validated with it."""
    base = tmp_path_factory.mktemp("gradescope-data")
    _export("--gradescope", base / "autograder.zip", *IDS)
    source = base / "autograder" / "source"
    source.mkdir(parents=True)
    subprocess.run(["unzip", "-q", base / "autograder.zip", "-d", source], check=True)
    tools = base / "tools"  # a python3 on PATH that is this interpreter (not a slow pyenv shim)
    tools.mkdir()
    (tools / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
    env = {**os.environ, "GRADER_SKIP_APT": "1", "GRADER_SOURCE": str(source), "GRADER_VENV": str(base / "venv"),
           "GRADER_BIN": str(base / "bin"), "PATH": f"{tools}:{os.environ['PATH']}",
           "GRADER_ENV_DIR": str(environments)}
    env.pop("VIRTUAL_ENV", None)
    setup = subprocess.run(["bash", source / "setup.sh"], capture_output=True, text=True, env=env, timeout=1800)
    assert setup.returncode == 0, setup.stdout[-4000:] + setup.stderr[-4000:]
    return source, env, setup.stdout + setup.stderr


def test_gradescope_setup_builds_the_environment_then_validates_with_it(gradescope, environments: Path) -> None:
    _, _, log = gradescope
    assert "setup.sh: building the course's environment from requirements.txt" in log
    assert "installing 3 pinned package(s) with pip" in log
    built = [p for p in environments.iterdir() if (p / "grader-environment.json").is_file()]
    assert len(built) == 1
    assert json.loads((built[0] / "grader-environment.json").read_text())["packages"] == [
        "matplotlib==3.11.2", "numpy==2.4.6", "pandas==3.1.1"]
    assert log.index("building the course's environment") < log.index("every exercise is valid (2 of 2")


def test_a_data_course_submission_is_graded_from_the_built_gradescope_bundle(gradescope, tmp_path: Path) -> None:
    source, env, _ = gradescope
    root = tmp_path / "autograder"
    shutil.copytree(source, root / "source")
    (root / "submission").mkdir()
    shutil.copy(REFERENCE / "zscores" / "accepted" / "vectorised.py", root / "submission" / "zscores.py")
    shutil.copy(REFERENCE / "store-totals" / "wrong_answer" / "mean_not_sum.py", root / "submission" / "store-totals.py")
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    run = subprocess.run([root / "run_autograder"], cwd=root, capture_output=True, text=True, timeout=600,
                         env={**env, "GRADER_AUTOGRADER_ROOT": str(root)})
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    exercises = results["extra_data"]["exercises"]
    assert exercises["zscores"]["verdict"] == "passed", results
    assert exercises["store-totals"]["verdict"] == "wrong_answer", results
    assert any("environment" in line for line in results["extra_data"]["isolation"])


def test_the_student_bundle_builds_its_environment_and_checks_with_it(tmp_path: Path, environments: Path,
                                                                      gradescope) -> None:
    bundle = tmp_path / "student"
    _export("--student", bundle, *IDS)
    env = {"GRADER_ENV_DIR": str(environments)}
    submission = tmp_path / "zscores.py"
    shutil.copy(REFERENCE / "zscores" / "accepted" / "vectorised.py", submission)
    readme = (bundle / "README.md").read_text()
    assert "grader env build --exercises exercises" in readme
    built = run_cli("env", "build", "--exercises", "exercises", cwd=bundle, env=env, timeout=1800)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "already built" in built.stdout  # the same list and interpreter: the set-up's build, reused
    checked = run_cli("check", "zscores", submission, "--format", "json", "--exercises", bundle / "exercises", env=env)
    assert checked.json()["verdict"] == "passed", checked.stdout + checked.stderr
    wrong = tmp_path / "wrong.py"
    shutil.copy(REFERENCE / "store-totals" / "wrong_answer" / "mean_not_sum.py", wrong)
    failed = run_cli("check", "store-totals", wrong, "--format", "json", "--exercises", bundle / "exercises", env=env)
    assert failed.json()["verdict"] == "wrong_answer", failed.stdout


def test_a_student_bundle_whose_environment_is_not_built_says_how_to_build_it(tmp_path: Path) -> None:
    bundle = tmp_path / "student"
    _export("--student", bundle, "zscores")
    submission = tmp_path / "zscores.py"
    shutil.copy(REFERENCE / "zscores" / "accepted" / "vectorised.py", submission)
    empty = tmp_path / "no-environments"
    checked = run_cli("check", "zscores", submission, "--format", "json", "--exercises", bundle / "exercises",
                      env={"GRADER_ENV_DIR": str(empty)})
    assert "grader env build" in checked.stdout + checked.stderr
    assert not empty.exists() or not any(empty.iterdir())  # nothing downloaded
