"""The shipped schemas: every exercise spec of the course validates, malformed specs fail (as the loader
also refuses them), the JSON report and grades.json validate, and the report's schema refuses a hidden
test that carries its answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from grader.errors import SpecError
from grader.spec import load_exercise
from tests.conftest import EXERCISES, REFERENCE, run_cli
from tests.platforms.schemas import problems

GOOD = """\
title: Double
kind: function
entry: double
statement: Return twice n.
tests:
  - name: double(2)
    call: double(2)
    expect: 4
"""

MALFORMED = {
    "a misspelt key": ("titel: Double\n" + GOOD.split("\n", 1)[1], "titel"),
    "hidden is not a boolean": (GOOD + "    hidden: sometimes\n", "hidden"),
    "no tests": (GOOD.split("tests:")[0] + "tests: []\n", "tests"),
    "a negative memory limit": (GOOD + "    limits: {memory: -5}\n", "memory"),
    "an unknown kind": (GOOD.replace("kind: function", "kind: essay"), "essay"),
}


@pytest.mark.parametrize("spec", sorted(EXERCISES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_exercise_validates_against_the_exercise_schema(spec: Path) -> None:
    assert problems("exercise", yaml.safe_load(spec.read_text())) == []


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_spec_fails_the_schema_as_it_fails_the_loader(case: str, tmp_path: Path) -> None:
    text, word = MALFORMED[case]
    found = problems("exercise", yaml.safe_load(text))
    assert found, f"the schema accepts {case}"
    assert any(word in problem for problem in found), found
    spec = tmp_path / "exercises" / "double.yaml"
    spec.parent.mkdir()
    spec.write_text(text)
    with pytest.raises(SpecError):
        load_exercise(spec)


def test_the_good_spec_passes_both_the_schema_and_the_loader(tmp_path: Path) -> None:
    spec = tmp_path / "double.yaml"
    spec.write_text(GOOD)
    assert problems("exercise", yaml.safe_load(GOOD)) == []
    assert load_exercise(spec).id == "double"


@pytest.mark.parametrize("reference", ["accepted/plain_sets.py", "wrong_answer/zero_based.py",
                                       "runtime_error/joins_integers.py"])
def test_the_json_report_validates_against_its_schema(reference: str) -> None:
    result = run_cli("check", "every-way", REFERENCE / "every-way" / reference, "--format", "json")
    assert problems("report", result.json()) == []


def test_the_report_schema_refuses_a_hidden_test_that_carries_its_answer() -> None:
    report = run_cli("check", "every-way", REFERENCE / "every-way" / "wrong_answer" / "zero_based.py",
                     "--format", "json").json()
    hidden = next(t for t in report["tests"] if t["hidden"])
    hidden["expected"] = "2 4 1 3"
    assert any("should not be valid" in p for p in problems("report", report))


def test_grades_json_of_a_batch_validates_against_its_schema(tmp_path: Path) -> None:
    for student, source in (("ada", "accepted/plain_sets.py"), ("alan", "wrong_answer/zero_based.py")):
        folder = tmp_path / "class" / student
        folder.mkdir(parents=True)
        (folder / "every-way.py").write_text((REFERENCE / "every-way" / source).read_text())
    (tmp_path / "class" / "grace").mkdir()  # hands in nothing
    result = run_cli("batch", tmp_path / "class", "--out", tmp_path / "out", "--only", "every-way",
                     "--outputs", "json,gradescope", "--workers", "2", timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    grades = json.loads((tmp_path / "out" / "grades.json").read_text())
    assert problems("grades", grades) == []
    assert [s["student"] for s in grades["students"]] == ["ada", "alan", "grace"]
    for student in ("ada", "alan", "grace"):
        gradescope = json.loads((tmp_path / "out" / "gradescope" / student / "results.json").read_text())
        assert problems("gradescope-results", gradescope) == []


@pytest.mark.parametrize("spec", sorted((EXERCISES.parent / "examples").glob("*/exercises/*.yaml")),
                         ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_every_example_exercise_validates_against_the_exercise_schema(spec: Path) -> None:
    assert problems("exercise", yaml.safe_load(spec.read_text())) == []
