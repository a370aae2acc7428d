"""The same right grade wherever the grader runs: each way a grade once went wrong, through the CLI.

A batch compares a program's files and exit status with the reference's, as a check does; a container's
layers with an empty cache, and the grader as PID 1, grade as anywhere else; a score format runs every
test; calibrated limits travel with the course; a read-only cache slows a grade but never stops it;
nothing the grader started is alive once it returns; a memory bomb is a memory bomb."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import EXERCISES, REFERENCE, ROOT, run_cli, templated

CONTAINER = {"GRADER_LAYERS": "uid,seccomp,landlock"}  # a plain Docker container's layers, as root
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="a container's grader is root")


def _has_pid_namespaces() -> bool:
    return os.geteuid() == 0 and subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"],
                                                capture_output=True).returncode == 0


def test_a_batch_gives_correct_programs_full_marks_and_shows_their_expected_output(tmp_path: Path) -> None:
    accepted = sorted((REFERENCE / "board-files" / "accepted").glob("*.py"))
    for number, path in enumerate(accepted):
        (tmp_path / "class" / f"student{number}").mkdir(parents=True)
        shutil.copy(path, tmp_path / "class" / f"student{number}" / "board-files.py")
    wrong = tmp_path / "class" / "wrong"
    wrong.mkdir()
    shutil.copy(REFERENCE / "board-files" / "wrong_answer" / "prints_placements.py", wrong / "board-files.py")
    out = tmp_path / "out"
    result = run_cli("batch", tmp_path / "class", "--only", "board-files", "--out", out, "--outputs", "json")
    assert result.returncode == 0, result.stderr
    grades = {s["student"]: s["exercises"]["board-files"] for s in json.loads((out / "grades.json").read_text())["students"]}
    for number in range(len(accepted)):
        assert grades[f"student{number}"]["score"] == grades[f"student{number}"]["max_score"] == 7
    single = run_cli("check", "board-files", wrong / "board-files.py", "--format", "json").json()
    assert grades["wrong"]["score"] == single["score"] < 7
    shown = run_cli("batch", "show", "wrong", "board-files", "--out", out)
    assert "ProgramAnswer" not in shown.stdout and "StepAnswer" not in shown.stdout, shown.stdout


@ROOT_ONLY
@pytest.mark.parametrize("reference", [p for p in sorted(REFERENCE.glob("*/accepted/*.py")) if not templated(p)], ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_a_containers_layers_with_an_empty_cache_pass_every_accepted_reference(reference: Path, tmp_path: Path) -> None:
    result = run_cli("check", reference.parent.parent.name, reference, "--format", "json",
                     env={**CONTAINER, "GRADER_CACHE": str(tmp_path / "empty")})
    report = result.json()
    assert report["verdict"] == "passed", [t["feedback"] for t in report["tests"]]
    assert re.fullmatch(r"isolation: uid \d+, seccomp, landlock", report["isolation"]), report["isolation"]


@pytest.mark.skipif(not _has_pid_namespaces(), reason="needs root and new PID namespaces")
@pytest.mark.parametrize("layers", [CONTAINER, {}], ids=["container", "every layer"])
def test_the_grader_as_pid_1_grades(layers: dict[str, str], tmp_path: Path) -> None:
    reference = REFERENCE / "every-way" / "accepted" / "plain_sets.py"
    done = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-m", "grader", "check",
                           "every-way", str(reference), "--format", "json"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **layers, "GRADER_CACHE": str(tmp_path / "cache")})
    report = json.loads(done.stdout)
    assert report["verdict"] == "passed", [t["feedback"] for t in report["tests"]]


SLOW_ON_FOUR = """
def count_queens(n):
    if n == 4:
        while True:
            pass
    return {1: 1, 2: 0, 3: 0, 5: 10, 6: 4, 11: 2680}[n]
"""


def test_a_timeout_on_the_first_test_costs_a_score_format_only_that_test(tmp_path: Path) -> None:
    submission = tmp_path / "count-queens.py"
    submission.write_text(SLOW_ON_FOUR)
    (tmp_path / "class" / "slow").mkdir(parents=True)
    shutil.copy(submission, tmp_path / "class" / "slow" / "count-queens.py")
    run_cli("batch", tmp_path / "class", "--only", "count-queens", "--out", tmp_path / "out", "--outputs", "json")
    batch = json.loads((tmp_path / "out" / "grades.json").read_text())["students"][0]["exercises"]["count-queens"]
    assert batch["score"] == 5  # every test but the one that loops
    prairielearn = run_cli("check", "count-queens", submission, "--format", "prairielearn").json()
    assert prairielearn["score"] * 6 == pytest.approx(batch["score"])
    gradescope = run_cli("check", "count-queens", submission, "--format", "gradescope").json()
    assert gradescope["score"] == batch["score"]
    classroom = run_cli("check", "count-queens", submission, "--format", "github-classroom").json()
    assert sum(t["score"] for t in classroom["tests"]) == batch["score"]
    student = run_cli("check", "count-queens", submission, "--format", "json").json()  # a student's report stops
    assert [t["verdict"] for t in student["tests"]].count("skipped") == 5


def _course_copy(tmp_path: Path) -> Path:
    course = tmp_path / "course"
    for name in ("exercises", "reference"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns(".calibration"))
    return course


@pytest.mark.skipif(os.geteuid() != 0, reason="another host name needs a UTS namespace (root)")
def test_limits_calibrated_where_the_course_was_built_apply_on_another_host_with_an_empty_cache(tmp_path: Path) -> None:
    course = _course_copy(tmp_path)
    built = run_cli("calibrate", "count-queens", "--exercises", course / "exercises",
                    env={"GRADER_CACHE": str(tmp_path / "build-cache")})
    assert built.returncode == 0, built.stderr
    assert (course / "exercises" / ".calibration" / "count-queens.json").is_file()
    reference = course / "reference" / "count-queens" / "accepted" / "plain_sets.py"
    done = subprocess.run(["unshare", "--uts", "sh", "-c", 'hostname "grading-$$" && exec "$@"', "sh",
                           sys.executable, "-m", "grader", "check", "count-queens", str(reference), "--exercises",
                           str(course / "exercises"), "--format", "json"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "GRADER_CACHE": str(tmp_path / "grading-cache")})
    report = json.loads(done.stdout)
    assert all("calibrated" in t["limit_source"] for t in report["tests"]), [t["limit_source"] for t in report["tests"]]


@pytest.mark.parametrize("where", ["not a folder", "read-only"])
def test_a_cache_that_cannot_be_written_is_a_warning_and_the_grade_goes_on(where: str, tmp_path: Path) -> None:
    if where == "not a folder":
        cache = "/dev/null/grader-cache"
    else:
        if os.geteuid() != 0:
            pytest.skip("mounting a read-only file system needs root")
        (tmp_path / "ro").mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(tmp_path / "ro")], check=True)
        cache = str(tmp_path / "ro" / "cache")
    try:
        for exercise, reference in (("count-queens", "plain_sets.py"), ("board-files", "recursive.py")):
            result = run_cli("check", exercise, REFERENCE / exercise / "accepted" / reference,
                             env={"GRADER_CACHE": cache})
            assert result.returncode == 0, result.stderr
            assert result.stderr.count("warning: the grader's cache") == 1, result.stderr
    finally:
        if where == "read-only":
            subprocess.run(["umount", str(tmp_path / "ro")], check=True)


# Runs the grader and reports, right after it returns, every process left of what it started: as a
# subreaper, every orphan of the grader's comes back to this process rather than to init.
WATCHER = """
import ctypes, json, os, subprocess, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
done = subprocess.run(sys.argv[1:], capture_output=True)
left = []
for task in os.listdir("/proc/self/task"):
    for pid in open(f"/proc/self/task/{task}/children").read().split():
        try:
            left.append(open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\\0", b" ").decode(errors="replace"))
        except OSError:
            left.append(pid)
print(json.dumps({"returncode": done.returncode, "left": left, "stderr": done.stderr.decode()[-2000:]}))
"""

LEAVING = {
    "daemon.py": """
        import os, time
        def count_queens(n):
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    time.sleep(60)
                os._exit(0)
            return {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4, 11: 2680}[n]
    """,
    "base_exception.py": """
        class Stop(BaseException):
            pass
        def count_queens(n):
            raise Stop()
    """,
    "loops.py": """
        def count_queens(n):
            while True:
                pass
    """,
}


@pytest.mark.parametrize("layers", [{}, CONTAINER, {"GRADER_LAYERS": "uid"}], ids=["every layer", "container", "uid only"])
def test_nothing_the_grader_started_is_alive_when_it_returns(layers: dict[str, str], tmp_path: Path) -> None:
    watcher = tmp_path / "watcher.py"
    watcher.write_text(WATCHER)
    for name, code in LEAVING.items():
        submission = tmp_path / name
        submission.write_text(textwrap.dedent(code))
        for command in (["check", "count-queens", str(submission), "--format", "json", "--all"],
                        ["check", "count-queens", str(submission)]):
            done = subprocess.run([sys.executable, str(watcher), sys.executable, "-m", "grader", *command],
                                  capture_output=True, text=True, timeout=180, env={**os.environ, **layers})
            seen = json.loads(done.stdout)
            assert seen["returncode"] in (0, 1), seen["stderr"]
            assert seen["left"] == [], (name, command, seen["left"])
    (tmp_path / "class" / "a").mkdir(parents=True)
    for name in LEAVING:
        (tmp_path / "class" / name.removesuffix(".py")).mkdir()
        shutil.copy(tmp_path / name, tmp_path / "class" / name.removesuffix(".py") / "count-queens.py")
    done = subprocess.run([sys.executable, str(watcher), sys.executable, "-m", "grader", "batch", str(tmp_path / "class"),
                           "--only", "count-queens", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300, env={**os.environ, **layers})
    seen = json.loads(done.stdout)
    assert seen["returncode"] in (0, 1), seen["stderr"]
    assert seen["left"] == [], seen["left"]


# Children hold the sandbox's memory at its group's limit while the test's own process burns its CPU: the
# memory ran out, whatever stopped the test first.
MEMORY_AT_THE_LIMIT = """
import os
def count_queens(n):
    for _ in range(6):
        if os.fork() == 0:
            blocks = []
            try:
                while True:
                    blocks.append(bytearray(50 * 1024 * 1024))
            except MemoryError:
                pass
            while True:
                pass
    while True:
        pass
"""


def test_a_memory_bomb_is_a_memory_limit_under_a_one_second_cpu_limit(tmp_path: Path) -> None:
    doctor = run_cli("check", "count-queens", REFERENCE / "count-queens" / "accepted" / "plain_sets.py",
                     "--format", "json").json()
    if "cgroup" not in doctor["isolation"]:
        pytest.skip("the memory a group of processes reaches is known only with the cgroup layer")
    course = _course_copy(tmp_path)
    spec = course / "exercises" / "count-queens.yaml"
    spec.write_text(spec.read_text().replace("tests:\n", "limits: {cpu: 1.0, memory: 128}\ntests:\n", 1))
    submission = tmp_path / "bomb.py"
    submission.write_text(MEMORY_AT_THE_LIMIT)
    report = run_cli("check", "count-queens", submission, "--exercises", course / "exercises", "--format", "json",
                     "--all").json()
    verdicts = [t["verdict"] for t in report["tests"]]
    assert verdicts == ["memory_limit"] * len(verdicts), [(t["verdict"], t["feedback"]) for t in report["tests"]]


def test_a_hand_in_that_breaks_its_reader_is_that_students_verdict_and_the_class_is_graded(tmp_path: Path) -> None:
    good, bad = tmp_path / "class" / "good", tmp_path / "class" / "bad" / "count-queens"
    good.mkdir(parents=True)
    bad.mkdir(parents=True)
    shutil.copy(REFERENCE / "count-queens" / "accepted" / "plain_sets.py", good / "count-queens.py")
    shutil.copy(REFERENCE / "count-queens" / "accepted" / "plain_sets.py", bad / "count_queens.py")
    (bad / "loop.py").symlink_to("loop.py")  # a folder hand-in with a link to itself
    result = run_cli("batch", tmp_path / "class", "--only", "count-queens", "--out", tmp_path / "out",
                     "--outputs", "json")
    assert result.returncode == 0, result.stderr  # the batch did its job: every student has a grade
    grades = {s["student"]: s["exercises"]["count-queens"] for s in
              json.loads((tmp_path / "out" / "grades.json").read_text())["students"]}
    assert grades["good"]["score"] == 6
    assert grades["bad"]["score"] == 0 and grades["bad"]["verdict"] == "runtime_error"
