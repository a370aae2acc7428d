"""The platforms as instructors deploy them, in real containers (opt-in: GRADER_CONTAINER_TESTS=1; it needs
root, Docker and the package registries, and installs docker.io and debootstrap from apt when missing).

- Gradescope: the zip of `grader export --gradescope` built as Gradescope builds it (unzipped into
  /autograder/source, run_autograder copied up, dos2unix, `apt-get update && bash setup.sh`) on Ubuntu 22.04
  built with debootstrap, then `/autograder/run_autograder` as the container's command, with plain Docker's
  capabilities and Gradescope's ½ CPU and 768 MB, for a correct, a wrong, a syntax-error, a missing and a
  looping submission.
- PrairieLearn: the image of `grader export --prairielearn` on Debian 12, and a job run as PrairieLearn's grader
  host runs it: /grade mounted, the entrypoint split with shlex and executed without a shell, no network,
  results.json read only after exit 0.
- GitHub Classroom: the template of `grader export --github-classroom` on Ubuntu 22.04 as the runner, each
  `run:` step of its workflow executed in order by bash as a non-root user, then the reporter's own
  JavaScript (classroom-resources/autograding-grading-reporter v1, tests/containers/reporter/) on its outputs.

Timings (image builds, grading wall time per submission) are printed with -s and kept in
$GRADER_CONTAINER_TIMINGS (default /var/tmp/grader-container-timings.json)."""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import REFERENCE, run_cli
from tests.containers.images import DEBIAN_12, UBUNTU_22_04, base_image, build, digest
from tests.platforms.schemas import problems

pytestmark = pytest.mark.skipif(os.environ.get("GRADER_CONTAINER_TESTS") != "1",
                                reason="container tests are opt-in: GRADER_CONTAINER_TESTS=1 (root, Docker)")

HERE = Path(__file__).resolve().parent
TIMINGS = Path(os.environ.get("GRADER_CONTAINER_TIMINGS", "/var/tmp/grader-container-timings.json"))
EXERCISE_IDS = ("count-queens", "any-queens")  # any-queens has a checker file: it must travel in every bundle
CORRECT = (REFERENCE / "count-queens" / "accepted" / "plain_sets.py").read_text()
ANY_QUEENS = (REFERENCE / "any-queens" / "accepted" / "constructive.py").read_text()
SUBMISSIONS = {  # name: (count-queens.py, or None when missing; the verdict expected)
    "correct": (CORRECT, "passed"),
    "wrong": ("def count_queens(n):\n    return -1\n", "wrong_answer"),
    "syntax-error": ("def count_queens(n:\n", "syntax_error"),
    "missing": (None, "missing"),
    "looping": ("def count_queens(n):\n    while True:\n        pass\n", "timeout"),
}
timings: dict[str, float] = {}


def record_time(name: str, seconds: float) -> None:
    timings[name] = round(seconds, 2)
    print(f"{name}: {seconds:.1f} s")
    TIMINGS.write_text(json.dumps({**_kept(), **timings}, indent=2) + "\n")


def _kept() -> dict[str, float]:
    try:
        return json.loads(TIMINGS.read_text())
    except (OSError, ValueError):
        return {}


def docker(*args: str, check: bool = True, timeout: float = 900, **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


# ---------------------------------------------------------------- Docker itself
@pytest.fixture(scope="module", autouse=True)
def docker_daemon() -> None:
    missing = [package for package, tool in (("docker.io", "dockerd"), ("debootstrap", "debootstrap"))
               if shutil.which(tool) is None]
    if missing:
        subprocess.run(["apt-get", "install", "-y", "-q", *missing], check=True, capture_output=True,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    if subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        log = open("/var/tmp/grader-dockerd.log", "ab")
        subprocess.Popen(["dockerd"], stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + 60
        while subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
            assert time.monotonic() < deadline, "dockerd did not start: see /var/tmp/grader-dockerd.log"
            time.sleep(1)


def base(system) -> str:
    tag, seconds = base_image(system)
    if seconds:
        record_time(f"debootstrap {system.name}", seconds)
    return tag


# ---------------------------------------------------------------- Gradescope
GRADESCOPE_BUILD = """\
FROM {base}
RUN mkdir -p /autograder/source
ADD autograder.zip /tmp/autograder.zip
RUN unzip -n -d /autograder/source /tmp/autograder.zip && \\
    cp /autograder/source/run_autograder /autograder/run_autograder && \\
    dos2unix /autograder/run_autograder /autograder/source/setup.sh && \\
    chmod +x /autograder/run_autograder && \\
    apt-get update && bash /autograder/source/setup.sh && apt-get clean
WORKDIR /autograder
"""


@pytest.fixture(scope="module")
def gradescope_image(tmp_path_factory: pytest.TempPathFactory) -> str:
    context = tmp_path_factory.mktemp("gradescope-build")
    exported = run_cli("export", "--gradescope", context / "autograder.zip", *EXERCISE_IDS)
    assert exported.returncode == 0, exported.stderr
    dockerfile = GRADESCOPE_BUILD.format(base=base(UBUNTU_22_04))
    (context / "Dockerfile").write_text(dockerfile)
    tag = f"grader-test/gradescope:{digest(dockerfile, (context / 'autograder.zip').read_bytes())}"
    seconds = build(tag, context)
    if seconds:
        record_time("gradescope image build (setup.sh)", seconds)
    return tag


def autograde(image: str, files: dict[str, str], tmp_path: Path) -> tuple[dict, float, str]:
    """One submission, as Gradescope grades it: a fresh container of the image, the files put in
    /autograder/submission, run_autograder as its command (PID 1), ½ CPU, 768 MB."""
    submission = tmp_path / "submission"
    submission.mkdir()
    for name, text in files.items():
        (submission / name).write_text(text)
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(json.dumps({"id": 1, "created_at": "2026-12-01T10:00:00.000000+00:00", "users": [
        {"id": 7, "name": "Ada Lovelace", "email": "ada@example.com"}], "assignment": {
        "title": "Queens", "due_date": "2026-12-02T10:00:00.000000+00:00"}}))
    container = docker("create", "--cpus", "0.5", "--memory", "768m", image, "/autograder/run_autograder").stdout.strip()
    try:
        docker("cp", f"{submission}/.", f"{container}:/autograder/submission")
        docker("cp", str(metadata), f"{container}:/autograder/submission_metadata.json")
        started = time.monotonic()
        run = docker("start", "-a", container, check=False)
        wall = time.monotonic() - started
        out = tmp_path / "results.json"
        docker("cp", f"{container}:/autograder/results/results.json", str(out))
        return json.loads(out.read_text()), wall, run.stdout + run.stderr
    finally:
        docker("rm", "-f", container, check=False)


def test_the_gradescope_bundle_builds_on_ubuntu_22_04_with_its_own_python3(gradescope_image: str) -> None:
    version = docker("run", "--rm", gradescope_image, "/opt/grader/bin/python", "-c",
                     "import sys; print(sys.version.split()[0])").stdout.strip()
    assert version.startswith("3.10."), version  # Ubuntu 22.04's python3: no release candidate installed
    mode = docker("run", "--rm", gradescope_image, "stat", "-c", "%a", "/autograder/source").stdout.strip()
    assert mode.endswith("0"), f"the source folder is readable by others: {mode}"
    listing = docker("run", "--rm", gradescope_image, "ls", "/autograder/source/exercises").stdout.split()
    assert "any_queens_check.py" in listing


@pytest.mark.parametrize("name", list(SUBMISSIONS))
def test_gradescope_grades_each_kind_of_submission(gradescope_image: str, tmp_path: Path, name: str) -> None:
    text, verdict = SUBMISSIONS[name]
    files = {"any-queens.py": ANY_QUEENS} | ({"count-queens.py": text} if text is not None else {})
    results, wall, log = autograde(gradescope_image, files, tmp_path)
    record_time(f"gradescope run_autograder, {name} submission (--cpus 0.5)", wall)
    if "sandbox set-up failed" in json.dumps(results):
        pytest.fail(f"the sandbox could not start under PID 1 in the container: {log}\n{json.dumps(results)[:2000]}")
    assert problems("gradescope-results", results) == [], results
    exercises = results["extra_data"]["exercises"]
    assert exercises["count-queens"]["verdict"] == verdict, (results, log)
    assert exercises["any-queens"]["verdict"] == "passed", (results, log)  # a missing file costs only its exercise
    expected = exercises["any-queens"]["max_score"] + (6.0 if verdict == "passed" else 0.0)
    assert results["score"] == expected
    layers = " ".join(results["extra_data"]["isolation"])
    assert "uid" in layers and "seccomp" in layers, layers  # plain Docker: a uid and seccomp at least


# ---------------------------------------------------------------- PrairieLearn
@pytest.fixture(scope="module")
def prairielearn_image(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    context = tmp_path_factory.mktemp("prairielearn") / "grader-image"
    exported = run_cli("export", "--prairielearn", context, *EXERCISE_IDS)
    assert exported.returncode == 0, exported.stderr
    base_tag = base(DEBIAN_12)
    # The Dockerfile as written, on a base image built here (the registry's python:3.12-slim is not reachable).
    contents = b"".join(p.read_bytes() for p in sorted(context.rglob("*")) if p.is_file())
    tag = f"grader-test/prairielearn:{digest(base_tag, contents)}"
    if not subprocess.run(["docker", "image", "inspect", tag], capture_output=True).returncode == 0:
        started = time.monotonic()
        docker("build", "-q", "--build-arg", f"BASE={base_tag}", "-t", tag, str(context),
               env={**os.environ, "DOCKER_BUILDKIT": "0"})
        record_time("prairielearn image build", time.monotonic() - started)
    return tag, context


def grader_host_job(image: str, entrypoint: str, files: dict[str, str], job: Path, timeout: int) -> dict | None:
    """PrairieLearn's grader host: /grade with the student's files, the entrypoint split with shlex and
    executed without a shell, no network, 0.9 CPU, 2 GiB, 1024 pids; results.json only after exit 0."""
    (job / "student").mkdir(parents=True)
    (job / "results").mkdir()
    for name, text in files.items():
        (job / "student" / name).write_text(text)
    try:
        run = docker("run", "--rm", "--network", "none", "--cpus", "0.9", "--memory", "2g", "--pids-limit", "1024",
                     "-v", f"{job}:/grade", image, *shlex.split(entrypoint), check=False, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if run.returncode != 0:
        return None
    return json.loads((job / "results" / "results.json").read_text())


def test_a_prairielearn_job_is_graded_through_the_entrypoint_without_a_shell(prairielearn_image, tmp_path: Path) -> None:
    image, context = prairielearn_image
    readme = (context / "README.md").read_text()
    options = json.loads(re.search(r"```json\n(.*?)```", readme, re.S).group(1))["externalGradingOptions"]
    entrypoint = options["entrypoint"].replace(EXERCISE_IDS[0], "count-queens")
    for name, (text, verdict) in SUBMISSIONS.items():
        files = {"count-queens.py": text} if text is not None else {}
        started = time.monotonic()
        results = grader_host_job(image, entrypoint, files, tmp_path / name, options["timeout"])
        record_time(f"prairielearn job, {name} submission (--cpus 0.9)", time.monotonic() - started)
        assert results is not None, f"{name}: the job gave no results (non-zero exit or over the timeout)"
        assert problems("prairielearn-results", results) == [], results
        if "sandbox set-up failed" in json.dumps(results):  # the entrypoint is the container's PID 1
            pytest.fail(f"the sandbox could not start with the grader as PID 1: {json.dumps(results)[:1500]}")
        if verdict == "syntax_error":
            assert results["gradable"] is False  # the student keeps the attempt
            continue
        assert results["gradable"] is True and (results["score"] == 1.0) == (verdict == "passed"), results
        assert verdict in results["message"], results
        assert verdict == "missing" or "uid" in results["isolation"], results  # nothing ran for a missing file


# ---------------------------------------------------------------- GitHub Classroom
CLASSROOM_RUNNER = """\
FROM {base}
RUN apt-get update && apt-get install -y -q python3-venv && apt-get clean && \\
    useradd --create-home --uid 1001 runner
"""


@pytest.fixture(scope="module")
def reporter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reporter's source (v1) with the dependencies its package.json names, from npm."""
    folder = tmp_path_factory.mktemp("reporter")
    shutil.copytree(HERE / "reporter", folder / "src")
    subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "@actions/core@1.10.1",
                    "cli-table3@0.6.3"], cwd=folder, check=True, capture_output=True, timeout=600)
    return folder


def test_the_classroom_workflow_gives_each_exercise_its_own_points_and_shows_feedback(reporter: Path,
                                                                                    tmp_path: Path) -> None:
    template = tmp_path / "template"
    exported = run_cli("export", "--github-classroom", template, "count-queens", "every-way", "any-queens")
    assert exported.returncode == 0, exported.stderr
    workflow = yaml.safe_load((template / ".github/workflows/classroom.yml").read_text())
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    reporter_step = next(s for s in steps if "uses" in s and "autograding-grading-reporter" in s["uses"])
    assert reporter_step["uses"] == "classroom-resources/autograding-grading-reporter@v1"
    # A correct count-queens, a wrong every-way, and no any-queens at all.
    (template / "count-queens.py").write_text(CORRECT)
    (template / "every-way.py").write_text((REFERENCE / "every-way" / "wrong_answer" / "zero_based.py").read_text())
    context = tmp_path / "runner"
    context.mkdir()
    dockerfile = CLASSROOM_RUNNER.format(base=base(UBUNTU_22_04))
    (context / "Dockerfile").write_text(dockerfile)
    runner_image = f"grader-test/classroom-runner:{digest(dockerfile)}"
    build(runner_image, context)
    container = docker("run", "-d", runner_image, "sleep", "3600").stdout.strip()
    logs: dict[str, str] = {}
    outputs: dict[str, str] = {}
    try:
        docker("cp", f"{template}/.", f"{container}:/home/runner/work")
        docker("exec", container, "chown", "-R", "runner:runner", "/home/runner/work")
        # actions/setup-python, as a venv whose `python` is first on PATH
        docker("exec", "-u", "runner", container, "python3", "-m", "venv", "/home/runner/python")
        for step in steps:  # each `run:` step in order, as the runner runs them: bash -e, as a non-root user
            if "run" not in step:
                continue
            output = f"/tmp/output-{step.get('id', 'step')}"
            script = f"export GITHUB_OUTPUT={output} RUNNER_TEMP=/tmp PATH=/home/runner/python/bin:$PATH\n{step['run']}"
            done = docker("exec", "-u", "runner", "-w", "/home/runner/work", container, "bash", "-e", "-c", script,
                          check=False, timeout=600)
            logs[step["name"]] = done.stdout + done.stderr
            assert done.returncode == 0 or step.get("continue-on-error"), (step["name"], done.stdout, done.stderr)
            if "id" in step:
                outputs[step["id"]] = docker("exec", container, "cat", output).stdout.strip().partition("=")[2]
    finally:
        docker("rm", "-f", container, check=False)
    assert "uid" in logs["Sandbox layers"] and "seccomp" in logs["Sandbox layers"]  # the layers, in the log
    env = {"PATH": os.environ["PATH"], "INPUT_RUNNERS": reporter_step["with"]["runners"]}
    results = {}
    for key, value in reporter_step["env"].items():
        step_id = re.search(r"steps\.([\w-]+)\.outputs\.result", value).group(1)
        env[key] = outputs[step_id]
        results[step_id] = json.loads(base64.b64decode(outputs[step_id]))
        assert problems("github-classroom-results", results[step_id]) == [], results[step_id]
    started = time.monotonic()
    report = subprocess.run(["node", reporter / "src" / "main.js"], env=env, capture_output=True, text=True, timeout=120)
    record_time("classroom reporter", time.monotonic() - started)
    log = report.stdout + report.stderr
    scores = {step: sum(t["score"] for t in r["tests"]) for step, r in results.items()}
    assert scores["count-queens"] == results["count-queens"]["max_score"] > 0  # whatever the other steps did
    assert 0 < scores["every-way"] < results["every-way"]["max_score"]
    assert scores["any-queens"] == 0 and results["any-queens"]["max_score"] > 0
    points = re.search(r"Points ([\d.]+)/([\d.]+)", log)
    assert points, log
    assert float(points.group(1)) == sum(scores.values())
    assert float(points.group(2)) == sum(r["max_score"] for r in results.values())
    assert "expected" in log, log  # every-way's failed test shows its feedback, not just its name
    assert "any-queens.py" in log, log  # and the missing file says what to hand in
