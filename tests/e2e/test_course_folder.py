"""A course is a folder: `grader` works on the course it is run in, a broken spec does not block the rest,
and a wheel install carries the bundled course."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

ADD = textwrap.dedent("""\
    title: Add two numbers
    kind: function
    entry: add
    statement: Return a + b.
    tests:
      - name: add(1, 2)
        call: add(1, 2)
        expect: 3
    """)
BROKEN = textwrap.dedent("""\
    title: Broken
    kind: function
    entry: half
    statement: Return n / 2.
    tests:
      - name: half(2)
        cal: half(2)
    """)


def make_course(root: Path, *, config: str | None = None, broken: bool = False) -> Path:
    """A course folder at `root` with an exercise `add` (and a spec `broken` with a misspelt key)."""
    (root / "exercises").mkdir(parents=True)
    (root / "exercises" / "add.yaml").write_text(ADD)
    if broken:
        (root / "exercises" / "broken.yaml").write_text(BROKEN)
    accepted = root / "reference" / "add" / "accepted"
    accepted.mkdir(parents=True)
    (accepted / "plain.py").write_text("def add(a, b):\n    return a + b\n")
    if config is not None:
        (root / "grader-course.yaml").write_text(config)
    return root / "exercises"


def listed_ids(stdout: str) -> list[str]:
    return [line.split("│")[1].strip() for line in stdout.splitlines() if line.startswith("│")]


def no_course_env() -> dict[str, str]:
    return {"GRADER_EXERCISES": ""}


def test_inside_a_course_folder_grader_works_on_it_without_exercises(tmp_path: Path) -> None:
    exercises = make_course(tmp_path / "course")
    wrong = tmp_path / "course" / "work" / "add.py"
    wrong.parent.mkdir()
    wrong.write_text("def add(a, b):\n    return a - b\n")
    for cwd in (tmp_path / "course", exercises, wrong.parent):  # the course's root, its specs, a folder below
        listed = run_cli("list", cwd=cwd, env=no_course_env())
        assert listed.returncode == 0, listed.stderr
        assert listed_ids(listed.stdout) == ["add"], listed.stdout
    checked = run_cli("check", "add", "add.py", cwd=wrong.parent, env=no_course_env())
    assert checked.returncode == 1 and "expected 3, got -1" in checked.stdout, checked.stdout


def test_a_course_file_marks_the_course_and_may_name_its_exercises_folder(tmp_path: Path) -> None:
    root = tmp_path / "course"
    (root / "specs").mkdir(parents=True)
    (root / "specs" / "add.yaml").write_text(ADD)
    (root / "grader-course.yaml").write_text("title: Week 1\nexercises: specs\n")
    (root / "notes").mkdir()
    listed = run_cli("list", cwd=root / "notes", env=no_course_env())
    assert listed.returncode == 0 and listed_ids(listed.stdout) == ["add"], listed.stdout + listed.stderr
    (root / "grader-course.yaml").write_text("- not a mapping\n")
    refused = run_cli("list", cwd=root, env=no_course_env())
    assert refused.returncode == 2 and "grader-course.yaml: a course file is a mapping" in refused.stderr


def test_outside_any_course_grader_exercises_and_then_the_bundled_course_are_used(tmp_path: Path) -> None:
    exercises = make_course(tmp_path / "elsewhere")
    outside = tmp_path / "outside"
    outside.mkdir()
    from_env = run_cli("list", cwd=outside, env={**no_course_env(), "GRADER_EXERCISES": str(exercises)})
    assert listed_ids(from_env.stdout) == ["add"], from_env.stderr
    bundled = run_cli("list", cwd=outside, env=no_course_env())
    assert bundled.returncode == 0 and "any-queens" in listed_ids(bundled.stdout)


def test_exercises_on_the_command_line_wins_over_the_course_around(tmp_path: Path) -> None:
    make_course(tmp_path / "course")
    chosen = run_cli("list", "--exercises", ROOT / "examples" / "basics" / "exercises", cwd=tmp_path / "course",
                     env={"GRADER_EXERCISES": str(tmp_path / "course" / "exercises")})
    assert listed_ids(chosen.stdout) == ["mean", "sort-words"], chosen.stderr


def test_the_basics_course_is_checked_from_inside_its_folder(tmp_path: Path) -> None:
    wrong = tmp_path / "sort_words.py"
    wrong.write_text("def sort_words(words):\n    return sorted(words)\n")
    checked = run_cli("check", "sort-words", wrong, "--format", "json", cwd=ROOT / "examples" / "basics",
                      env=no_course_env())
    report = checked.json()
    assert checked.returncode == 1 and report["exercise"] == "sort-words" and report["verdict"] == "wrong_answer"


def test_a_broken_spec_is_reported_once_and_the_rest_of_the_course_works(tmp_path: Path) -> None:
    exercises = make_course(tmp_path / "course", broken=True)
    listed = run_cli("list", cwd=tmp_path / "course", env=no_course_env())
    assert listed.returncode == 3 and listed_ids(listed.stdout) == ["add"]
    problem = f"{exercises / 'broken.yaml'}:7:5: unknown key 'cal' in a test (did you mean 'call'?)"
    assert listed.stderr.count(problem) == 1, listed.stderr
    right = tmp_path / "add.py"
    right.write_text("def add(a, b):\n    return a + b\n")
    assert run_cli("check", "add", right, cwd=tmp_path / "course", env=no_course_env()).returncode == 0
    broken = run_cli("check", "broken", right, cwd=tmp_path / "course", env=no_course_env())
    assert broken.returncode == 3 and problem in broken.stderr

    student = tmp_path / "class" / "ada"
    student.mkdir(parents=True)
    (student / "add.py").write_text(right.read_text())
    (student / "broken.py").write_text("def half(n):\n    return n / 2\n")
    batch = run_cli("batch", tmp_path / "class", "--out", tmp_path / "out", "--workers", "1",
                    cwd=tmp_path / "course", env=no_course_env())
    assert batch.returncode == 3, batch.stdout + batch.stderr
    assert batch.stderr.count(problem) == 1 and "the other exercises work" in batch.stderr
    assert "1 student x 1 exercise (add)" in batch.stderr
    assert (tmp_path / "out" / "gradebook.csv").is_file()


@pytest.mark.skipif(not os.environ.get("PIP_INDEX_URL") and not Path("/etc/pip.conf").exists()
                    and not (Path.home() / ".config" / "pip" / "pip.conf").exists(),
                    reason="needs a package index for the build backend")
def test_a_wheel_installed_in_a_fresh_venv_ships_the_bundled_course(tmp_path: Path) -> None:
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path / "dist", ROOT],
                           capture_output=True, text=True, timeout=300, check=False)
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("yaml_grader-*.whl")  # the distribution name
    names = zipfile.ZipFile(wheel).namelist()
    assert "grader/_bundled/exercises/any-queens.yaml" in names
    assert "grader/_bundled/reference/any-queens/accepted/constructive.py" in names
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=120)
    python = venv / "bin" / "python"
    installed = subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", wheel],
                               capture_output=True, text=True, timeout=300, check=False)
    assert installed.returncode == 0, installed.stderr
    # The dependencies come from this test run's environment, but grader itself only from the wheel.
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    deps = [p for p in sys.path if p.endswith("site-packages")]
    Path(site, "test-deps.pth").write_text("\n".join(deps) + "\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    listed = subprocess.run([python, "-m", "grader", "list"], capture_output=True, text=True, cwd=outside,
                            timeout=120, check=False, env={**os.environ, **no_course_env()})
    assert listed.returncode == 0, listed.stderr
    assert "any-queens" in listed.stdout and "_bundled" in listed.stdout.replace("\n", "")
    answer = ROOT / "reference" / "any-queens" / "accepted" / "constructive.py"
    checked = subprocess.run([python, "-m", "grader", "check", "any-queens", answer, "--format", "json"],
                             capture_output=True, text=True, cwd=outside, timeout=300, check=False,
                             env={**os.environ, **no_course_env()})
    assert checked.returncode == 0, checked.stdout + checked.stderr
