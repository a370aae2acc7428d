"""Stopped at any moment (SIGKILL, SIGTERM), a batch started again finishes without losing, duplicating or
regrading a result; after a submission or an exercise changes, only what changed is graded again."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.batch.classroom import children_of, expected_gradebook, write_class, write_course
from tests.batch.conftest import GradedClass, batch, read_csv

KEY = "submission_hash, exercise_hash, grader_version, run_all"


def start_batch(root: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "grader", "batch", root / "class", "--exercises", root / "exercises", "--out", out,
         "--workers", "2"],
        stdout=subprocess.DEVNULL, stderr=(root / "stderr.txt").open("wb"))


def wait_for_gradings(database: Path, count: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Until the database holds `count` gradings run in the sandbox, read as any other reader would."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the batch ended before it could be stopped"
        try:
            with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as db:
                if db.execute("SELECT COUNT(*) FROM gradings WHERE worker != '-'").fetchone()[0] >= count:
                    return
        except sqlite3.OperationalError:
            pass  # not created yet
        time.sleep(0.05)
    pytest.fail(f"fewer than {count} gradings after {timeout} s")


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def assert_gone(pids: list[int], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not all(gone(pid) for pid in pids):
        time.sleep(0.05)
    assert [pid for pid in pids if not gone(pid)] == [], "worker processes outlived the batch"


def scores(out: Path) -> dict[str, dict[str, float]]:
    return {row.pop("student").removeprefix("'"): {k: float(v) for k, v in row.items()}
            for row in read_csv(out / "gradebook.csv")}


def gradings(out: Path) -> dict[tuple[str, ...], tuple[int, float]]:
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute(f"SELECT {KEY}, run_id, graded_at FROM gradings").fetchall()
        assert db.execute("SELECT COUNT(*) FROM outcomes").fetchone()[0] == db.execute(
            f"SELECT COUNT(*) FROM (SELECT DISTINCT {KEY}, position FROM outcomes)").fetchone()[0]
    return {tuple(map(str, row[:4])): (row[4], row[5]) for row in rows}


def test_a_batch_killed_with_sigkill_resumes_with_every_result_exactly_once(tmp_path: Path) -> None:
    write_course(tmp_path)
    chosen = write_class(tmp_path / "class")
    out = tmp_path / "out"
    process = start_batch(tmp_path, out)
    try:
        wait_for_gradings(out / "results.sqlite", 20, process)
        workers = children_of(process.pid)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.kill()
        process.wait()
    assert workers, "the batch had worker processes"
    assert_gone(workers)  # and with them their sandboxes (PR_SET_PDEATHSIG)
    before = gradings(out)
    assert 20 <= len([k for k in before]) < 64 * 3

    resumed = batch(tmp_path / "class", "--exercises", tmp_path / "exercises", "--out", out, "--workers", 2)
    assert resumed.returncode == 0, resumed.stderr
    after = gradings(out)
    assert {key: after[key] for key in before} == before  # nothing graded before the kill was graded again
    assert {run for run, _ in after.values()} == {1, 2}
    with sqlite3.connect(out / "results.sqlite") as db:
        distinct = db.execute(f"SELECT COUNT(*) FROM (SELECT DISTINCT {KEY} FROM submissions)").fetchone()[0]
        assert len(after) == distinct  # every submission graded, exactly once
        assert db.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 64 * (4 + 2 + 1)
        runs = db.execute("SELECT run_id, finished_at IS NOT NULL FROM runs ORDER BY run_id").fetchall()
    assert runs == [(1, 0), (2, 1)]
    assert scores(out) == expected_gradebook(chosen)


def test_sigterm_stops_the_batch_cleanly_and_says_how_to_finish(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_class(tmp_path / "class", count=24)
    out = tmp_path / "out"
    process = start_batch(tmp_path, out)
    try:
        wait_for_gradings(out / "results.sqlite", 4, process)
        workers = children_of(process.pid)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 130
    finally:
        process.kill()
        process.wait()
    assert_gone(workers)
    assert "run the same command again" in (tmp_path / "stderr.txt").read_text()
    assert not (out / "gradebook.csv").exists()  # no output from half a class
    resumed = batch(tmp_path / "class", "--exercises", tmp_path / "exercises", "--out", out)
    assert resumed.returncode == 0, resumed.stderr
    assert len(read_csv(out / "gradebook.csv")) == 24


def test_after_a_submission_and_an_exercise_change_only_those_are_graded_again(graded_class: GradedClass,
                                                                                tmp_path: Path) -> None:
    for name in ("class", "exercises", "out"):
        shutil.copytree(graded_class.root / name, tmp_path / name)
    again = batch(tmp_path / "class", "--exercises", tmp_path / "exercises", "--out", tmp_path / "out")
    assert "0 graded now" in " ".join(again.stdout.split()), again.stdout

    student = next(s for s, answers in graded_class.chosen.items() if answers["add"].name == "crash")
    (tmp_path / "class" / student / "add.py").write_text("def add(a, b):\n    return a + b\n")
    spec = tmp_path / "exercises" / "shout.yaml"
    spec.write_text(spec.read_text().replace("points: 2\n  - name: two words", "points: 3\n  - name: two words"))
    changed = batch(tmp_path / "class", "--exercises", tmp_path / "exercises", "--out", tmp_path / "out")
    assert changed.returncode == 0, changed.stderr

    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        shout_keys = db.execute("SELECT COUNT(DISTINCT submission_hash) FROM submissions "
                                "WHERE exercise = 'shout'").fetchone()[0]
        fresh = db.execute("SELECT exercise, COUNT(*) FROM gradings WHERE run_id = 3 GROUP BY exercise").fetchall()
    assert dict(fresh) == {"add": 1, "shout": shout_keys}
    expected = expected_gradebook(graded_class.chosen)
    expected[student]["add"] = 4
    for student_scores, answers in zip(expected.values(), graded_class.chosen.values(), strict=True):
        if answers["shout"].name == "correct":
            student_scores["shout"] = 5
        elif answers["shout"].name == "first only":
            student_scores["shout"] = 3
        student_scores["total"] = student_scores["add"] + student_scores["guess"] + student_scores["shout"]
    assert scores(tmp_path / "out") == expected


def test_regrade_grades_everything_again(graded_class: GradedClass, tmp_path: Path) -> None:
    for name in ("class", "exercises", "out"):
        shutil.copytree(graded_class.root / name, tmp_path / name)
    (tmp_path / "class" / "s000").rename(tmp_path / "class" / "s000-renamed")
    result = batch(tmp_path / "class", "--exercises", tmp_path / "exercises", "--out", tmp_path / "out",
                   "--regrade", "--only", "guess", "--outputs", "csv")
    assert result.returncode == 0, result.stderr
    assert "64 submissions: 0 already in the database, 64 graded now" in " ".join(result.stdout.split())
    students = [row["student"] for row in read_csv(tmp_path / "out" / "gradebook.csv")]
    assert "s000-renamed" in students and "s000" not in students  # the gradebook is the class as it is now
