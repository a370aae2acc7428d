"""`grader analytics` at the command line: what it refuses is a usage error (exit 2) with its reason, and it
never writes into a file it was not made for."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import run_cli


def test_a_folder_without_batch_results_is_a_usage_error(tmp_path: Path) -> None:
    done = run_cli("analytics", tmp_path)
    assert done.returncode == 2 and "no batch results at" in done.stderr and "Traceback" not in done.stderr


def test_a_file_that_is_no_store_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    other = tmp_path / "notes.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.commit()
    db.close()
    before = hashlib.sha256(other.read_bytes()).hexdigest()
    text = tmp_path / "results.txt"
    text.write_text("student,score\n")
    for path in (other, text):
        done = run_cli("analytics", path)
        assert done.returncode == 2 and "is not a batch's results.sqlite" in done.stderr, done.stderr
    assert hashlib.sha256(other.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite", "results.txt"]


@pytest.mark.parametrize("args", [("--format", "xml"), ("--top", "0"), ("--top", "lots"), ()])
def test_a_bad_option_prints_the_usage_and_exits_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    done = run_cli("analytics", *((tmp_path, *args) if args else ()))
    assert done.returncode == 2 and "usage:" in done.stderr


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    (root / "class" / "ann").mkdir(parents=True)
    (root / "class" / "ann" / "mean.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    exercises = Path(__file__).resolve().parents[2] / "examples" / "basics" / "exercises"
    done = run_cli("batch", root / "class", "--exercises", exercises, "--out", root / "out", timeout=600)
    assert done.returncode == 0, done.stderr
    return root / "out"


def test_an_exercise_nobody_handed_in_is_a_usage_error_naming_those_handed_in(results: Path) -> None:
    done = run_cli("analytics", results, "--exercise", "sort-words")
    assert done.returncode == 2 and "nobody handed in sort-words" in done.stderr and "handed in: mean" in done.stderr


@pytest.mark.parametrize("content", [None, "not json", "[1, 2]", '{"exercises": 3}'])
def test_a_mutants_file_that_is_not_validates_json_is_a_usage_error(results: Path, tmp_path: Path,
                                                                    content: str | None) -> None:
    path = tmp_path / "mutants.json"
    if content is not None:
        path.write_text(content)
    done = run_cli("analytics", results, "--mutants", path)
    assert done.returncode == 2 and "--mutants" in done.stderr and "Traceback" not in done.stderr


def test_json_goes_to_a_file_or_into_a_folder_or_to_the_terminal(results: Path, tmp_path: Path) -> None:
    printed = run_cli("analytics", results, "--exercise", "mean")
    assert printed.returncode == 0 and printed.json()["exercises"][0]["id"] == "mean"
    into = run_cli("analytics", results, "--out", tmp_path)
    assert into.returncode == 0 and (tmp_path / "analytics.json").is_file()
    assert (tmp_path / "analytics.json").read_text() == printed.stdout


def test_a_csv_folder_that_is_a_file_is_a_usage_error(results: Path, tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("")
    done = run_cli("analytics", results, "--format", "csv", "--out", tmp_path / "taken")
    assert done.returncode == 2 and "is a file, not a folder" in done.stderr


def test_a_store_edited_by_hand_gives_bounded_answers_or_a_usage_error(results: Path, tmp_path: Path) -> None:
    import shutil

    store = tmp_path / "results.sqlite"
    shutil.copy(results / "results.sqlite", store)
    db = sqlite3.connect(store)
    db.execute("UPDATE outcomes SET actual = ?, test = test || ? WHERE verdict = 'wrong_answer'",
               ("9" * 2_000_000, " \u202e\x1b[2J ünï"))
    db.commit()
    done = run_cli("analytics", store)
    assert done.returncode == 0, done.stderr
    [mean] = done.json()["exercises"]
    [empty] = [t for t in mean["tests"] if t["failing"]]
    assert empty["name"] == "an empty list raises ValueError \u202e\x1b[2J ünï"  # as JSON escapes, never raw
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout
    assert empty["wrong_answers"][0]["answer_length"] == 2_000_000 and len(done.stdout) < 100_000

    db.execute("UPDATE outcomes SET verdict = 'exploded'")
    db.commit()
    db.close()
    done = run_cli("analytics", store)
    assert done.returncode == 2 and "cannot be read as a batch's results" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_out_path_that_cannot_be_written_is_a_usage_error(results: Path, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    for args in (("--out", tmp_path / "file" / "analytics.json"), ("--format", "csv", "--out", tmp_path / "file" / "t")):
        done = run_cli("analytics", results, *args)
        assert done.returncode == 2 and "cannot write the analytics" in done.stderr and "Traceback" not in done.stderr
    nested = run_cli("analytics", results, "--out", tmp_path / "new" / "folder" / "a.json")
    assert nested.returncode == 0 and (tmp_path / "new" / "folder" / "a.json").is_file()
