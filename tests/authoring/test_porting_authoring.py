"""What an instructor moving a course meets: YAML 1.1's surprises warned of, the course folder taken for its
exercises, references handed in as notebooks, zips and folders, hand-ins of several named files, and
`grader new` outside any course."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ROOT, run_cli

CLOCKISH = """title: T
kind: function
entry: f
statement: s
tests:
  - {name: time, call: f(), expect: 11:01}
  - {name: flag, call: g(), expect: yes}
  - {name: quoted, call: h(), expect: "11:01"}
"""
CLOCKISH_REFERENCE = "def f():\n    return 661\n\n\ndef g():\n    return True\n\n\ndef h():\n    return '11:01'\n"


def test_validate_warns_of_base_60_and_other_surprising_scalars_naming_file_and_line(course) -> None:  # noqa: ANN001
    path = course.write("t", CLOCKISH)
    course.reference("t", "plain.py", CLOCKISH_REFERENCE)
    result = run_cli("validate", "--exercises", course.exercises, "t")
    assert result.returncode == 0, result.stdout  # warnings: the spec may mean them
    out = " ".join(result.stdout.split())
    assert f"{path}:6:37: YAML 1.1 reads 11:01 as the base-60 number 661, and the grader uses that number; quote it (\"11:01\")" in out
    assert f"{path}:7:37: YAML 1.1 reads yes as True" in out
    assert ":8:" not in out  # quoted: what it says


def test_exercises_given_the_course_folder_finds_its_exercises(course) -> None:  # noqa: ANN001
    course.write("t", CLOCKISH)
    course.reference("t", "plain.py", CLOCKISH_REFERENCE)
    assert "t" in run_cli("list", "--exercises", course.root).stdout  # exercises/ beside reference/
    (course.root / "grader-course.yaml").write_text("title: c\nexercises: exercises\n")
    listed = run_cli("list", "--exercises", course.root)
    assert listed.returncode == 0 and "grader-course" not in listed.stdout + listed.stderr
    assert run_cli("validate", "--exercises", ROOT / "examples" / "unittest-port", "grains").returncode == 0


ADD = "title: Add\nkind: function\nentry: add\nstatement: s\ntests:\n  - {name: one, call: 'add(1, 2)', expect: 3}\n"


def notebook(path: Path, code: str) -> None:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": code}
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_notebook_zip_and_folder_references_are_graded_and_other_files_named(course) -> None:  # noqa: ANN001
    course.write("add", ADD)
    course.reference("add", "plain.py", "def add(a, b):\n    return a + b\n")
    accepted = course.root / "reference" / "add" / "accepted"
    notebook(accepted / "in-a-notebook.ipynb", "def add(a, b):\n    return b + a\n")
    (accepted / "two_files").mkdir()
    (accepted / "two_files" / "add.py").write_text("from helpers import plus\n\n\ndef add(a, b):\n    return plus(a, b)\n")
    (accepted / "two_files" / "helpers.py").write_text("def plus(a, b):\n    return a + b\n")
    wrong = course.reference("add", "minus.py", "def add(a, b):\n    return a - b\n", verdict="wrong_answer").parent
    notebook(wrong / "minus.ipynb", "def add(a, b):\n    return a - b\n")
    result = run_cli("validate", "--exercises", course.exercises, "add")
    assert result.returncode == 0, result.stdout
    for name in ("in-a-notebook.ipynb", "two_files", "minus.ipynb"):
        assert name in result.stdout
    (accepted / "notes.md").write_text("why")
    result = run_cli("validate", "--exercises", course.exercises, "add")
    assert result.returncode != 0 and "notes.md: not a reference" in " ".join(result.stdout.split())


def test_a_spec_may_require_a_folder_hand_in_with_named_files(course, tmp_path: Path) -> None:  # noqa: ANN001
    course.write("add", ADD.replace("statement: s\n", "statement: s\nhandin_files: [helpers.py]\n"))
    folder = course.root / "reference" / "add" / "accepted" / "two_files"
    folder.mkdir(parents=True)
    (folder / "add.py").write_text("from helpers import plus\n\n\ndef add(a, b):\n    return plus(a, b)\n")
    (folder / "helpers.py").write_text("def plus(a, b):\n    return a + b\n")
    report = run_cli("check", "--exercises", course.exercises, "add", folder, "--format", "json").json()
    assert report["verdict"] == "passed", report
    single = course.submission("add.py", "def add(a, b):\n    return a + b\n")
    report = run_cli("check", "--exercises", course.exercises, "add", single, "--format", "json").json()
    assert report["verdict"] == "runtime_error"
    assert "the hand-in lacks helpers.py" in json.dumps(report) and "hand in a folder" in json.dumps(report)
    course.write("add", ADD.replace("statement: s\n", "statement: s\nhandin_files: [helpers.txt]\n"))
    result = run_cli("validate", "--exercises", course.exercises, "add")
    assert result.returncode != 0 and "handin_files: 'helpers.txt' is not a Python file" in result.stdout + result.stderr


def test_new_outside_a_course_makes_one_and_never_writes_into_the_package(tmp_path: Path) -> None:
    bundled = sorted(p.name for p in (ROOT / "exercises").iterdir())
    result = run_cli("new", "count-rooks", cwd=tmp_path, env={"GRADER_EXERCISES": ""})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "made one here" in result.stdout
    assert (tmp_path / "grader-course.yaml").is_file() and (tmp_path / "exercises" / "count-rooks.yaml").is_file()
    assert (tmp_path / "reference" / "count-rooks" / "accepted").is_dir()
    assert sorted(p.name for p in (ROOT / "exercises").iterdir()) == bundled
    again = run_cli("new", "count-bishops", cwd=tmp_path / "exercises", env={"GRADER_EXERCISES": ""})
    assert again.returncode == 0 and "made one" not in again.stdout  # the course just made is found
    assert (tmp_path / "exercises" / "count-bishops.yaml").is_file()


ADD_UNWRITTEN = ("title: Add\nkind: function\nentry: add\nstatement: s\ntests:\n  - {name: one, call: 'add(1, 2)'}\n"
                 "  - {name: two, call: 'add(20, 2)', hidden: true}\n")


def test_a_notebook_or_a_folder_alone_gives_the_expected_values(course, tmp_path: Path) -> None:  # noqa: ANN001
    course.write("add", ADD_UNWRITTEN)
    accepted = course.root / "reference" / "add" / "accepted"
    accepted.mkdir(parents=True)
    notebook(accepted / "solution.ipynb", "def add(a, b):\n    return a + b\n")
    good = course.submission("add.py", "def add(a, b):\n    return b + a\n")
    wrong = course.submission("off.py", "def add(a, b):\n    return a + b + 1\n")
    for shape in ("notebook", "folder"):
        if shape == "folder":  # the notebook gives way to a folder of two files
            (accepted / "solution.ipynb").unlink()
            (accepted / "two_files").mkdir()
            (accepted / "two_files" / "add.py").write_text("from helpers import plus\n\n\ndef add(a, b):\n"
                                                           "    return plus(a, b)\n")
            (accepted / "two_files" / "helpers.py").write_text("def plus(a, b):\n    return a + b\n")
        checked = run_cli("check", "--exercises", course.exercises, "add", good, "--format", "json").json()
        assert checked["verdict"] == "passed", (shape, checked)
        off = run_cli("check", "--exercises", course.exercises, "add", wrong, "--format", "json").json()
        assert off["tests"][0]["expected"] == "3" and off["tests"][0]["actual"] == "4", (shape, off)
        validated = run_cli("validate", "--exercises", course.exercises, "add")
        assert validated.returncode == 0, (shape, validated.stdout)
        roster = tmp_path / shape / "ada"
        roster.mkdir(parents=True)
        (roster / "add.py").write_text(wrong.read_text())
        out = tmp_path / f"{shape}-out"
        assert run_cli("batch", roster.parent, "--exercises", course.exercises, "--out", out).returncode in (0, 1)
        graded = json.loads((out / "grades.json").read_text())["students"][0]["exercises"]["add"]["tests"]
        assert [t["verdict"] for t in graded] == ["wrong_answer", "wrong_answer"], (shape, graded)
