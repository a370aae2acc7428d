"""Every hand-in that once crashed or bloated the grader gets its student a verdict with the reason, through
`grader check` and in a class's `grader batch`, where the other students are graded and a gradebook written."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.handins.conftest import ADD, Course, verdicts, write
from tests.handins.hostile import NOTEBOOKS


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_a_hostile_notebook_is_refused_with_the_reason(course: Course, tmp_path: Path, name: str) -> None:
    report = course.check(write(tmp_path / "add.ipynb", NOTEBOOKS[name]))
    assert verdicts(report) == ["syntax_error", "syntax_error"], report
    assert report["tests"][0]["feedback"].startswith("the notebook cannot be read: "), report


def test_a_folder_holding_a_link_to_itself_is_refused(course: Course, tmp_path: Path) -> None:
    folder = tmp_path / "add"
    write(folder / "add.py", ADD)
    (folder / "loop.py").symlink_to("loop.py")
    report = course.check(folder)
    assert verdicts(report) == ["runtime_error", "runtime_error"]
    assert "loop.py" in report["tests"][0]["feedback"]


def test_a_zip_whose_member_list_is_huge_is_refused_before_it_is_read(course: Course, tmp_path: Path) -> None:
    handin = tmp_path / "add.zip"
    with zipfile.ZipFile(handin, "w", zipfile.ZIP_STORED) as archive:
        for number in range(30_000):
            archive.writestr(f"{number:x}" * 8, b"")
    report = course.check(handin)
    assert verdicts(report) == ["runtime_error", "runtime_error"]
    assert report["tests"][0]["feedback"].startswith("the zip's list of members takes")


def test_a_class_of_hostile_hand_ins_is_graded_around_them(course: Course, tmp_path: Path) -> None:
    """One student per hostile file, one good student: each gets a verdict, the batch ends well."""
    root = tmp_path / "class"
    write(root / "good" / "add.py", ADD)
    for name, data in NOTEBOOKS.items():
        write(root / f"nb-{name}" / "add.ipynb", data)
    write(root / "looped" / "add" / "add.py", ADD)
    (root / "looped" / "add" / "loop.py").symlink_to("loop.py")
    undecodable = os.fsencode(root) + b"/jos\xe9"
    os.makedirs(undecodable)
    with open(undecodable + b"/add.py", "w") as file:
        file.write(ADD)
    os.makedirs(undecodable + b"2/add")  # a folder hand-in whose file's name is no UTF-8
    with open(undecodable + b"2/add/\xff.py", "w") as file:
        file.write(ADD)
    write(root / "surrogates" / "add.py", 'def add(a, b):\n    raise ValueError("\\ud800 jos\\udce9")\n')
    out = tmp_path / "out"
    result = run_cli("batch", root, "--exercises", course.exercises, "--out", out, "--workers", 2,
                     "--outputs", "json,csv,html", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    grades = {s["student"]: s for s in json.loads((out / "grades.json").read_text())["students"]}
    assert grades["good"]["total"] == 2
    assert grades["jos\\xe9"]["total"] == 2
    assert grades["jos\\xe92"]["total"] == 2
    for name in NOTEBOOKS:
        assert grades[f"nb-{name}"]["exercises"]["add"]["verdict"] == "syntax_error"
    assert grades["looped"]["exercises"]["add"]["verdict"] == "runtime_error"
    assert grades["surrogates"]["exercises"]["add"]["verdict"] == "runtime_error"
    assert (out / "gradebook.csv").is_file()
    shown = run_cli("batch", "show", "surrogates", "add", "--out", out)
    assert shown.returncode == 0 and "\\ud800 jos\\udce9" in shown.stdout, shown.stdout + shown.stderr
    shown = run_cli("batch", "show", "jos\\xe9", "add", "--out", out)
    assert shown.returncode == 0, shown.stderr
