"""The spec's `rubric:`: the items a TA ticks when reviewing a hand-in on the course server. A malformed
rubric is reported as every spec problem is: the file, the line and column, the key, what is wanted."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from grader.model import RubricItem
from grader.spec import load_exercise
from tests.unit.test_spec import GOOD, problems

RUBRIC = """\
rubric:
  - id: clear-names
    points: 1
    description: Names say what they hold
  - id: no_docstring
    points: -0.5
    description: The function has no docstring
"""
SCHEMA = Path(__file__).resolve().parents[2] / "grader" / "schemas" / "exercise.schema.json"


def test_a_rubric_loads_with_positive_and_negative_points(tmp_path: Path) -> None:
    path = tmp_path / "add.yaml"
    path.write_text(GOOD + RUBRIC)
    assert load_exercise(path).rubric == (RubricItem("clear-names", 1.0, "Names say what they hold"),
                                          RubricItem("no_docstring", -0.5, "The function has no docstring"))


def test_an_exercise_without_a_rubric_has_none(tmp_path: Path) -> None:
    path = tmp_path / "add.yaml"
    path.write_text(GOOD)
    assert load_exercise(path).rubric == ()


@pytest.mark.parametrize(("change", "message"), [
    ((RUBRIC, "rubric: clear-names\n"), "add.yaml:9:9: rubric must be a list of {id: ITEM-ID, points: NUMBER, "
                                              "description: TEXT}"),
    (("    points: 1\n", ""), "add.yaml:10:5: a rubric item needs 'points': an id, the points it adds (negative: "
                               "takes off) and a description the student reads"),
    (("id: clear-names", "id: Clear Names"), "add.yaml:10:9: rubric: id 'Clear Names' must be lower-case letters, "
                                             "digits, '-' or '_' (e.g. clear-names)"),
    (("id: no_docstring", "id: clear-names"), "add.yaml:13:9: two rubric items have the id 'clear-names': ids must "
                                              "be unique"),
    (("points: 1\n", "points: lots\n"), "add.yaml:11:13: rubric item 'clear-names': points must be a number "
                                        "(negative takes points off), not 'lots'"),
    (("points: 1\n", "points: 0\n"), "add.yaml:11:13: rubric item 'clear-names': points must be a number other "
                                     "than 0, from -1000 to 1000, not 0.0"),
    (("points: 1\n", "points: .inf\n"), "add.yaml:11:13: rubric item 'clear-names': points must be a number other "
                                        "than 0, from -1000 to 1000, not inf"),
    (("description: Names say what they hold", "description: ''"),
     "add.yaml:12:18: rubric item 'clear-names': description must not be empty"),
    (("    points: 1\n", "    points: 1\n    weight: 2\n"), "add.yaml:12:5: unknown key 'weight' in a rubric item; "
                                                             "known keys: id, points, description"),
])
def test_a_malformed_rubric_names_the_file_line_and_key(tmp_path: Path, change: tuple[str, str],
                                                        message: str) -> None:
    assert problems(tmp_path, GOOD + RUBRIC.replace(*change, 1)) == [message]


def test_the_exercise_schema_takes_a_rubric_and_refuses_a_zero_or_an_unknown_key() -> None:
    schema = json.loads(SCHEMA.read_text())
    spec = yaml.safe_load(GOOD + RUBRIC)
    jsonschema.validate(spec, schema)
    for bad in ({"id": "x", "points": 0, "description": "d"}, {"id": "x", "points": 1, "description": "d", "y": 1},
                {"id": "X Y", "points": 1, "description": "d"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**spec, "rubric": [bad]}, schema)


def test_the_bundled_exercises_with_a_rubric_load_it() -> None:
    exercises = Path(__file__).resolve().parents[2] / "exercises"
    found = {path.stem: load_exercise(path).rubric for path in sorted(exercises.glob("*.yaml"))}
    assert {"count-queens", "n-queens"} <= {name for name, rubric in found.items() if rubric}
    assert any(item.points < 0 for item in found["count-queens"])
