"""`grader export --student` (no hidden test, no reference, visible tests checkable) and `grader new`."""

from __future__ import annotations

import zipfile
from pathlib import Path

import yaml

from tests.authoring.conftest import FAST, OFF_BY_ONE, PLAIN, CourseFolder, flat
from tests.conftest import EXERCISES, REFERENCE, run_cli

TUPLES = """\
title: Pairs
kind: function
entry: pair
statement: Return the pair (n, -n) as a tuple.
tests:
  - name: pair(1)
    call: pair(1)
    expect_literal: "(1, -1)"
  - name: pair(2)
    call: pair(2)
  - name: print(pair(3))
    call: print(pair(3))
    compare: output
  - name: pair(4)
    call: pair(4)
    hidden: true
"""


def test_the_student_bundle_has_visible_tests_with_their_answers_and_nothing_hidden(squares: CourseFolder, tmp_path: Path) -> None:
    squares.write("pairs", TUPLES)
    squares.reference("pairs", "plain.py", "def pair(n):\n    return (n, -n)\n")
    bundle = tmp_path / "bundle"
    result = run_cli("export", "--student", bundle, "--exercises", squares.exercises)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(p.name for p in (bundle / "exercises").iterdir()) == [".student-bundle", "pairs.yaml", "squares.yaml"]
    assert not (bundle / "reference").exists()
    [wheel] = (bundle / "wheels").glob("*.whl")  # the grader, for the student to install: no course file in it
    assert {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()} == {"grader", wheel.name.split("-py3")[0] + ".dist-info"}
    everything = "\n".join(p.read_text() for p in bundle.rglob("*") if p.is_file() and p != wheel)
    for secret in ("square(-2)", "square(10**6)", "pair(4)", "(4, -4)", "return n * n", "return (n, -n)"):
        assert secret not in everything
    pairs = yaml.safe_load((bundle / "exercises" / "pairs.yaml").read_text())
    # the bundle has no reference, so the values it would compute are written down, in their own types
    assert [t.get("expect", t.get("expect_literal")) for t in pairs["tests"]] == ["(1, -1)", "(2, -2)", "(3, -3)"]
    squares_spec = yaml.safe_load((bundle / "exercises" / "squares.yaml").read_text())
    assert squares_spec["starter"] == "def square(n):\n    pass\n" and "Write `square(n)`" in squares_spec["statement"]
    assert "grader check ID ID.py" in (bundle / "README.md").read_text()
    assert (bundle / "grader-course.yaml").is_file()  # a course: a check run in it uses it

    mine = squares.submission("pair.py", "def pair(n):\n    return (n, -n)\n")
    checked = run_cli("check", "pairs", mine, "--exercises", bundle / "exercises")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "All visible tests passed; the hidden tests run at grading time." in flat(checked.stdout)
    report = run_cli("check", "pairs", mine, "--exercises", bundle / "exercises", "--format", "json").json()
    assert report["visible_only"] is True and [t["name"] for t in report["tests"]] == ["pair(1)", "pair(2)",
                                                                                       "print(pair(3))"]
    wrong = squares.submission("list_pair.py", "def pair(n):\n    return [n, -n]\n")
    assert run_cli("check", "pairs", wrong, "--exercises", bundle / "exercises").returncode == 1


def test_the_bundle_of_the_shipped_exercises_checks_their_accepted_references(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    assert run_cli("export", "--student", bundle).returncode == 0
    for exercise in ("count-queens", "n-queens", "predict-attacked"):
        reference = next((REFERENCE / exercise / "accepted").iterdir())
        checked = run_cli("check", exercise, reference, "--exercises", bundle / "exercises", "--format", "json")
        assert checked.returncode == 0, checked.stdout
        spec = yaml.safe_load((EXERCISES / f"{exercise}.yaml").read_text())
        visible = [t["name"] for t in spec["tests"] if not t.get("hidden")]
        assert [t["name"] for t in checked.json()["tests"]] == visible
    predict = yaml.safe_load((bundle / "exercises" / "predict-attacked.yaml").read_text())
    assert all("expect" not in test for test in predict["tests"])  # the snippet answers it at check time


def test_export_refuses_a_folder_that_is_not_empty(squares: CourseFolder, tmp_path: Path) -> None:
    (tmp_path / "bundle").mkdir()
    (tmp_path / "bundle" / "notes.txt").write_text("mine")
    result = run_cli("export", "--student", tmp_path / "bundle", "--exercises", squares.exercises)
    assert result.returncode == 2
    assert "is not empty; pass --force to write into it" in result.stderr


def test_a_new_exercise_loads_fails_validation_on_each_todo_and_passes_once_filled_in(tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    created = run_cli("new", "square-it", "--exercises", exercises)
    assert created.returncode == 0, created.stderr
    assert run_cli("list", "--exercises", exercises).returncode == 0  # the scaffold is a valid spec
    reference = tmp_path / "reference" / "square-it"
    assert sorted(str(p.relative_to(reference)) for p in reference.rglob("*.py")) == [
        "accepted/fast.py", "accepted/plain.py", "timeout/brute_force.py", "wrong_answer/off_by_one.py"]

    unfilled = run_cli("validate", "--exercises", exercises)
    assert unfilled.returncode == 1
    for reason in ("✗ the title still says TODO", "✗ the statement still says TODO",
                   "✗ write the TODO in 4 references that grader new left: accepted/fast.py, accepted/plain.py, "
                   "wrong_answer/off_by_one.py, timeout/brute_force.py",
                   "✗ cannot set the time limits: the accepted reference fast.py cannot be timed",
                   "✗ the expected values cannot be produced: the reference failed on test 'square_it(1)': it raised "
                   "NotImplementedError: TODO: the reference solution", "references not graded"):
        assert reason in " ".join(unfilled.stdout.split()), unfilled.stdout
    # the summary agrees with the failures above: no limit was set, none is "ok"
    summary = unfilled.stdout[unfilled.stdout.index("grader validate"):]
    assert "not set" in summary and "1/1 ok" not in summary and "1 of 1 exercise failed" in summary, summary

    spec = exercises / "square-it.yaml"
    spec.write_text(spec.read_text().replace("TODO one line that names the task", "Square it")
                    .replace("TODO:", "Return").replace("TODO", "Multiply n by itself."))

    def rename(code: str) -> str:
        return code.replace("square(", "square_it(")

    (reference / "accepted" / "plain.py").write_text(rename(PLAIN))
    (reference / "accepted" / "fast.py").write_text(rename(FAST))
    (reference / "wrong_answer" / "off_by_one.py").write_text(rename(OFF_BY_ONE))
    (reference / "timeout" / "brute_force.py").write_text(
        "def square_it(n):\n    total = 0\n    for _ in range(n):\n        for _ in range(n):\n"
        "            total += 1\n    return total\n")
    spec.write_text(spec.read_text().replace("{entry}(20)", "").replace("square_it(20)", "square_it(10**5)"))
    filled = run_cli("validate", "--exercises", exercises)
    assert filled.returncode == 0, filled.stdout


def test_new_refuses_an_existing_exercise_and_a_bad_id(squares: CourseFolder) -> None:
    exists = run_cli("new", "squares", "--exercises", squares.exercises)
    assert exists.returncode == 2 and "exists: choose another id" in exists.stderr
    bad = run_cli("new", "Square_It", "--exercises", squares.exercises)
    assert bad.returncode == 2 and "is not an exercise id" in bad.stderr


def test_new_scaffolds_program_and_predict_exercises_that_load(tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    for kind, exercise_id in (("program", "read-it"), ("predict", "guess-it")):
        assert run_cli("new", exercise_id, "--kind", kind, "--exercises", exercises).returncode == 0
    listed = run_cli("list", "--exercises", exercises)
    assert listed.returncode == 0 and "read-it" in listed.stdout and "guess-it" in listed.stdout
