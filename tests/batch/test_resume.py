"""Stopped at any moment (SIGKILL, SIGTERM), a batch started again finishes without losing, duplicating or
regrading a result; after a submission or an exercise changes, only what changed is graded again."""

from __future__ import annotations

import os
import re
import shutil
import signal
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.batch.store import SCHEMA_VERSION
from tests.batch.classroom import children_of, expected_gradebook, write_class, write_course
from tests.batch.conftest import GradedClass, batch, read_csv
from tests.conftest import run_cli

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
        # The last run's gradings (the class's store may hold runs of other tests before this one's two).
        fresh = db.execute("SELECT exercise, COUNT(*) FROM gradings WHERE run_id = (SELECT MAX(run_id) FROM "
                           "gradings) GROUP BY exercise").fetchall()
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


# ---------------------------------------------------------------- limits: a grade that means the same every time
LIMITS_SPEC = """title: Add
kind: function
entry: add
statement: add(a, b)
tests:
  - name: small
    call: add(1, 2)
  - name: hidden
    call: add(2, 5)
    hidden: true
"""
FAST_REFERENCE = "def add(a, b):\n    return a + b\n"
# Burns CPU until process_time passes a mark: a limit three times its cost, whatever the machine's speed.
SLOW_REFERENCE = """import time


def add(a, b):
    mark = time.process_time() + 0.5
    while time.process_time() < mark:
        pass
    return a + b
"""


def limits_in(out: Path) -> set[tuple[str, float, str]]:
    """Every (test, CPU limit, where it came from) reported for any student, from grades.json."""
    grades = json.loads((out / "grades.json").read_text())
    return {(test["name"], test["limit_seconds"], test["limit_source"]) for student in grades["students"]
            for cell in student["exercises"].values() for test in cell["tests"]}


def said_limits(said: str) -> dict[str, float]:
    """test -> the new CPU limit, from what `grader calibrate --out` says is stale."""
    return {test: float(new) for test, new in re.findall(r"(\w+): [\d.]+ s -> ([\d.]+) s", said)}


def stored_limits(out: Path) -> set[float]:
    """The limits of every stored outcome the class's current results refer to."""
    with sqlite3.connect(out / "results.sqlite") as db:
        return {row[0] for row in db.execute(f"SELECT DISTINCT limit_seconds FROM results")}


def test_a_class_graded_again_after_a_new_calibration_reports_only_the_new_limits(tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    exercises.mkdir()
    (exercises / "add.yaml").write_text(LIMITS_SPEC)
    reference = tmp_path / "reference" / "add" / "accepted" / "plain.py"
    reference.parent.mkdir(parents=True)
    reference.write_text(FAST_REFERENCE)
    for number in range(6):
        student = tmp_path / "class" / f"s{number}"
        student.mkdir(parents=True)
        (student / "add.py").write_text(f"def add(a, b):\n    return a + b + {number % 2}\n")
    out = tmp_path / "out"
    env = {"GRADER_CACHE": str(tmp_path / "cache")}  # a machine of its own: calibrations here only

    def grade() -> tuple[str, str]:
        done = run_cli("batch", tmp_path / "class", "--exercises", exercises, "--out", out, "--outputs", "json",
                       env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        return " ".join(done.stdout.split()), " ".join(done.stderr.split())

    def calibrate() -> str:
        done = run_cli("calibrate", "add", "--exercises", exercises, "--out", out, env=env, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return " ".join(done.stdout.split())

    grade()
    assert limits_in(out) == {("small", 2.0, "the default"), ("hidden", 2.0, "the default")}

    said = calibrate()  # the fast reference: every test gets the calibration floor, 1 s
    assert "add: 6 stored results in" in said and said_limits(said) == {"small": 1.0, "hidden": 1.0}
    stdout, stderr = grade()
    assert "0 already in the database, 6 graded now" in stdout  # graded again, never reused
    assert "add: CPU limits changed since the last run here" in stderr
    assert {(test, limit) for test, limit, _ in limits_in(out)} == {("small", 1.0), ("hidden", 1.0)}
    assert all(source.startswith("the calibration floor, calibrated by the course on ")
               for _, _, source in limits_in(out))
    assert stored_limits(out) == {1.0}

    reference.write_text(SLOW_REFERENCE)  # calibrating anew gives other limits
    new = said_limits(calibrate())
    assert set(new) == {"small", "hidden"} and min(new.values()) > 1.0
    stdout, _ = grade()
    assert "0 already in the database, 6 graded now" in stdout
    reported = limits_in(out)
    # Nothing graded under 1 s or 2 s is reported: each test under its new limit, and only that.
    assert {(test, limit) for test, limit, _ in reported} == set(new.items())
    assert all(source.startswith("calibrated by the course on ") for _, _, source in reported)
    assert stored_limits(out) == set(new.values())
    assert "no stored result" in calibrate()  # the new limits are the stored ones: nothing is stale


# ---------------------------------------------------------------- the store's schema migrates in place
# The store as schema 1 wrote it, before migrations.
V1_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (            -- one row per `grader batch` invocation
    run_id INTEGER PRIMARY KEY, started_at REAL NOT NULL, finished_at REAL, workers TEXT NOT NULL,
    graded INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS exercises (       -- the exercises of the latest run
    exercise TEXT PRIMARY KEY, title TEXT NOT NULL, kind TEXT NOT NULL, exercise_hash TEXT NOT NULL,
    max_score REAL NOT NULL, tests TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (     -- the class of the latest run: student x exercise -> grading
    student TEXT NOT NULL, exercise TEXT NOT NULL, file TEXT,
    submission_hash TEXT NOT NULL, exercise_hash TEXT NOT NULL, grader_version TEXT NOT NULL,
    run_all INTEGER NOT NULL, PRIMARY KEY (student, exercise));
CREATE TABLE IF NOT EXISTS gradings (        -- one per distinct submission text x exercise x grader
    submission_hash TEXT NOT NULL, exercise_hash TEXT NOT NULL, grader_version TEXT NOT NULL,
    run_all INTEGER NOT NULL, exercise TEXT NOT NULL, label TEXT NOT NULL, verdict TEXT NOT NULL,
    score REAL NOT NULL, max_score REAL NOT NULL,
    cpu_seconds REAL NOT NULL,               -- the sandboxed processes' CPU (the submission's own)
    grader_cpu_seconds REAL NOT NULL,        -- the worker's own CPU for it
    wall_seconds REAL NOT NULL, isolation TEXT NOT NULL, worker TEXT NOT NULL, run_id INTEGER NOT NULL,
    graded_at REAL NOT NULL,
    PRIMARY KEY ({KEY}));
CREATE TABLE IF NOT EXISTS outcomes (        -- one row per graded submission x test
    submission_hash TEXT NOT NULL, exercise_hash TEXT NOT NULL, grader_version TEXT NOT NULL,
    run_all INTEGER NOT NULL, position INTEGER NOT NULL, test TEXT NOT NULL, verdict TEXT NOT NULL,
    points REAL NOT NULL, max_points REAL NOT NULL, hidden INTEGER NOT NULL, big INTEGER NOT NULL,
    feedback TEXT NOT NULL, details TEXT NOT NULL, expected TEXT, actual TEXT, cpu_seconds REAL NOT NULL,
    limit_seconds REAL NOT NULL, PRIMARY KEY ({KEY}, position),
    FOREIGN KEY ({KEY}) REFERENCES gradings ({KEY}));
CREATE VIEW IF NOT EXISTS results AS         -- the class's results: one row per student x exercise x test
    SELECT s.student, s.exercise, s.file, o.* FROM submissions s JOIN outcomes o USING ({KEY});
"""


def test_a_store_of_the_first_schema_is_upgraded_in_place_keeping_every_result(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    key = ("s" * 64, "e" * 64, "0.1.0", 0)
    with sqlite3.connect(out / "results.sqlite") as db:
        db.executescript(V1_SCHEMA)
        db.execute("INSERT INTO meta VALUES ('schema', '1')")
        db.execute("INSERT INTO runs (started_at, workers) VALUES (1, '1 local')")
        db.execute("INSERT INTO exercises VALUES ('add', 'Add', 'function', ?, 1, ?)",
                   (key[1], json.dumps([{"name": "small", "points": 1, "hidden": False, "big": False}])))
        db.execute("INSERT INTO submissions VALUES ('ada', 'add', 'ada/add.py', ?, ?, ?, ?)", key)
        db.execute("INSERT INTO gradings VALUES (?, ?, ?, ?, 'add', 'ada/add.py', 'wrong_answer', 0, 1, 0.01, "
                   "0.01, 0.2, 'uid', 'w', 1, 1)", key)
        db.execute("INSERT INTO outcomes VALUES (?, ?, ?, ?, 0, 'small', 'wrong_answer', 0, 1, 0, 0, "
                   "'expected 3, got 4', '', '3', '4', 0.01, 2.0)", key)
    db.close()

    shown = run_cli("batch", "show", "ada", "--out", out)
    assert shown.returncode == 0, shown.stderr
    assert "ada · add (ada/add.py): 0/1 wrong_answer" in " ".join(shown.stdout.split())
    assert "expected 3, got 4" in shown.stdout
    with sqlite3.connect(out / "results.sqlite") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(SCHEMA_VERSION)
        assert db.execute("SELECT input FROM outcomes").fetchall() == [(None,)]
        assert db.execute("SELECT COUNT(*) FROM gradings").fetchone()[0] == 1
        assert db.execute("SELECT limit_source FROM outcomes").fetchall() == [("",)]
        assert db.execute("SELECT COUNT(*) FROM staff_details").fetchone()[0] == 0
