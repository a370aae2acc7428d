"""Which file answers which exercise: `<id>.py` (`.txt` for predict) always, other names by the documented
rule (case, `-`, `_`, `.` and spaces do not matter) or by --match templates; odd files are refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.batch.discover import NameRule, discover
from grader.course import Course
from grader.errors import UsageError
from grader.model import Exercise
from tests.conftest import EXERCISES


@pytest.fixture(scope="module")
def exercises() -> dict[str, Exercise]:
    return {e.id: e for e in Course.at(EXERCISES).load_all()}


@pytest.mark.parametrize(("name", "exercise_id"), [
    ("count-queens.py", "count-queens"),
    ("count_queens.py", "count-queens"),
    ("Count Queens.py", "count-queens"),
    ("COUNTQUEENS.PY", "count-queens"),
    ("predict-attacked.txt", "predict-attacked"),
    ("predict_attacked.TXT", "predict-attacked"),
], ids=lambda value: value)
def test_the_default_rule_ignores_case_and_separators(exercises: dict[str, Exercise], name: str,
                                                      exercise_id: str) -> None:
    assert NameRule().rank(name, exercises[exercise_id]) is not None


@pytest.mark.parametrize(("name", "exercise_id"), [
    ("count-queens.txt", "count-queens"),  # a function exercise is a .py file
    ("predict-attacked.py", "predict-attacked"),  # a predict answer is a .txt file
    ("count-queens2.py", "count-queens"),
    ("my count-queens.py", "count-queens"),
], ids=lambda value: value)
def test_the_default_rule_refuses_other_names(exercises: dict[str, Exercise], name: str, exercise_id: str) -> None:
    assert NameRule().rank(name, exercises[exercise_id]) is None


def test_a_template_adds_names_and_the_exact_name_is_always_recognised(exercises: dict[str, Exercise]) -> None:
    rule = NameRule(("hw3-{id}.{ext}", "*_{id}_v?.py"))
    count_queens = exercises["count-queens"]
    assert rule.rank("count-queens.py", count_queens) == 0
    assert rule.rank("HW3-Count_Queens.py", count_queens) == 1
    assert rule.rank("ada_count_queens_v2.py", count_queens) == 2
    assert rule.rank("count_queens.py", count_queens) is None  # templates replace the default rule


def test_a_template_without_id_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"has no \{id\}"):
        NameRule(("homework.py",))


def write(path: Path, text: str = "x = 1\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_discovery_finds_each_students_files_and_reports_the_rest(tmp_path: Path,
                                                                  exercises: dict[str, Exercise]) -> None:
    write(tmp_path / "ada" / "count-queens.py")
    write(tmp_path / "ada" / "count_queens.py")  # a second candidate: the exact name wins
    write(tmp_path / "ada" / "n_queens_ii.py")  # fits n-queens-ii, not n-queens
    write(tmp_path / "ada" / "notes.md")
    write(tmp_path / "ada" / ".hidden.py")
    write(tmp_path / "ada" / "sub" / "n-queens.py")  # found in a sub-folder too
    write(tmp_path / "ada" / "old" / "count-queens.py")  # but a file nearer the top wins
    write(tmp_path / "__MACOSX" / "ada" / "count-queens.py")
    write(tmp_path / ".git" / "config")
    write(tmp_path / "README.txt")
    (tmp_path / "bob" / "every-way.py").mkdir(parents=True)
    os.symlink("/etc/passwd", tmp_path / "bob" / "count-queens.py")
    os.mkfifo(tmp_path / "bob" / "n-queens.py")
    write(tmp_path / "bob" / "real.py", "print(1)\n")
    os.symlink("real.py", tmp_path / "bob" / "first-solution.py")  # a link inside the folder is fine

    found = discover(tmp_path, list(exercises.values()), NameRule())
    assert found.students == ["ada", "bob"]
    assert found.found[("ada", "count-queens")].path == tmp_path / "ada" / "count-queens.py"
    assert found.found[("ada", "n-queens-ii")].path == tmp_path / "ada" / "n_queens_ii.py"
    assert found.found[("ada", "n-queens")].path == tmp_path / "ada" / "sub" / "n-queens.py"
    assert found.found[("ada", "floodlights")].path is None
    assert found.duplicates == ["ada/count_queens.py (graded count-queens.py for count-queens)",
                                "ada/old/count-queens.py (graded count-queens.py for count-queens)"]
    assert sorted(found.stray) == ["README.txt", "ada/notes.md", "bob/real.py"]
    refused = {e: found.found[("bob", e)].refused for e in ("count-queens", "n-queens", "every-way", "first-solution")}
    assert "symbolic link to outside" in refused["count-queens"]
    assert "not a regular file" in refused["n-queens"]
    assert "a folder, not a file" in refused["every-way"]
    assert refused["first-solution"] == ""
    assert found.handed_in() == {"count-queens", "n-queens-ii", "every-way", "n-queens", "first-solution"}


def test_a_folder_without_student_folders_is_a_usage_error(tmp_path: Path, exercises: dict[str, Exercise]) -> None:
    write(tmp_path / "count-queens.py")
    with pytest.raises(UsageError, match="no student folders"):
        discover(tmp_path, list(exercises.values()), NameRule())
