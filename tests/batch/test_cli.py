"""`grader batch` on the command line: bad input is a usage error (exit 2) that says what is wrong; a
broken spec is exit 3; outputs are written on request; the README's first command works."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from tests.batch.classroom import write_class, write_course
from tests.batch.conftest import batch, read_csv
from tests.conftest import ROOT, run_cli


@pytest.fixture
def small(tmp_path: Path) -> Path:
    write_course(tmp_path)
    write_class(tmp_path / "class", count=3)
    return tmp_path


@pytest.mark.parametrize(("args", "message"), [
    (["--workers", "0"], "must be at least 1"),
    (["--workers", "many"], "not a number"),
    (["--cluster", "localhost:8786"], "neither tcp://HOST:PORT nor local:N"),
    (["--cluster", "local:0"], "neither tcp://HOST:PORT nor local:N"),
    (["--cluster", "local:2", "--workers", "2"], "--workers is for local runs"),
    (["--outputs", "csv,pdf"], "unknown output pdf"),
    (["--only", "ad"], "no exercise 'ad'"),
    (["--match", "homework.py"], "has no {id}"),
], ids=lambda value: " ".join(value) if isinstance(value, list) else None)
def test_a_bad_command_line_is_a_usage_error(small: Path, args: list[str], message: str) -> None:
    result = batch(small / "class", "--exercises", small / "exercises", "--out", small / "out", *args)
    assert result.returncode == 2, result.stderr
    assert "usage: grader" in result.stderr and message in result.stderr


def test_a_missing_submissions_folder_is_a_usage_error(tmp_path: Path) -> None:
    result = batch(tmp_path / "nowhere", "--out", tmp_path / "out")
    assert result.returncode == 2
    assert "usage: grader" in result.stderr and "no submissions folder at" in result.stderr


def test_a_class_whose_files_answer_no_exercise_is_a_usage_error_that_points_at_match(tmp_path: Path) -> None:
    (tmp_path / "class" / "ada").mkdir(parents=True)
    (tmp_path / "class" / "ada" / "homework1.py").write_text("pass\n")
    result = batch(tmp_path / "class", "--out", tmp_path / "out")
    assert result.returncode == 2 and "see --match" in result.stderr


def test_a_broken_spec_is_exit_3(small: Path) -> None:
    (small / "exercises" / "add.yaml").write_text("title: Add\nkind: function\nentry: add\n")
    result = batch(small / "class", "--exercises", small / "exercises", "--out", small / "out")
    assert result.returncode == 3, result.stderr
    assert "add.yaml" in result.stderr


def test_two_batches_never_write_to_the_same_output_folder(small: Path) -> None:
    (small / "out").mkdir()
    holder = os.open(small / "out" / ".lock", os.O_CREAT | os.O_RDWR)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        result = batch(small / "class", "--exercises", small / "exercises", "--out", small / "out")
    finally:
        os.close(holder)
    assert result.returncode == 2 and "another grader batch is writing to" in result.stderr


def test_outputs_are_written_on_request_only(small: Path) -> None:
    result = batch(small / "class", "--exercises", small / "exercises", "--out", small / "out",
                   "--outputs", "csv,junit", "--workers", 1)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (small / "out").iterdir() if not p.name.startswith(".")) == [
        "gradebook.csv", "junit.xml", "results.sqlite"]


def test_the_help_documents_the_exit_codes() -> None:
    result = run_cli("batch", "--help")
    assert result.returncode == 0
    for code in ("0 ", "1 ", "2 ", "3 ", "4 ", "130"):
        assert f"\n  {code}" in result.stdout


def test_the_readme_command_grades_the_bundled_example_class(tmp_path: Path) -> None:
    students = sorted(p.name for p in (ROOT / "examples" / "class").iterdir() if p.is_dir())
    result = run_cli("batch", "examples/class", "--out", tmp_path / "grader-out", cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    assert [row["student"] for row in read_csv(tmp_path / "grader-out" / "gradebook.csv")] == students
