"""`grader import LESSON.json`: a lesson becomes exercises and accepted references that pass `grader validate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.authoring.conftest import flat
from tests.conftest import run_cli

SEED_LESSON = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "004_6ea2a81488edc49f.txt"

DIGIT_SUM = "def digit_sum(n):\n    return sum(int(d) for d in str(n))\n"


def lesson() -> dict:
    """A lesson of our own in the seed format: a predict task first, then two code tasks."""
    return {
        "id": "basics-digits", "slug": "digits", "title": "Digits",
        "text": "A number's digits can be read from its text: `str(n)`.",
        "task": "What does it print?", "kind": "predict",
        "seed": "for d in str(305):\n    print(d, int(d) * 2)\n",
        "solution": "for d in str(305):\n    print(d, int(d) * 2)\n",
        "hints": ["`str(305)` is the text '305'."],
        "tests": [{"name": "Output", "stdin": "", "expect": "3 6\n0 0\n5 10", "hidden": False}],
        "require": [], "forbid": [], "lines": ["3 6", "0 0", "5 10"],
        "more": [
            {"task": "Write `digit_sum(n)`.", "kind": "code", "seed": "def digit_sum(n):\n    pass\n",
             "solution": DIGIT_SUM + "\n\nif __name__ == '__main__':\n    print(digit_sum(305))\n",
             "hints": ["Loop over `str(n)`."],
             "tests": [
                 {"name": "print(digit_sum(305))", "stdin": "", "call": "print(digit_sum(305))\n", "expect": "8"},
                 {"name": "digit_sum(0)", "stdin": "", "call": "digit_sum(0)\n", "expect": "0", "returns": True},
                 {"name": "digit_sum(99)", "call": "digit_sum(99)", "expect": "18", "returns": True, "hidden": True},
                 {"name": "digit_sum(7 ** 5000)", "call": "digit_sum(7 ** 5000)", "returns": True, "hidden": True,
                  "big": True},
             ],
             "require": [], "forbid": [{"name": "eval", "message": "add the digits one by one"}]},
            {"task": "Read a number and print the sum of its digits.", "kind": "code",
             "seed": "n = input()\n", "solution": "print(sum(int(d) for d in input().strip()))\n",
             "tests": [{"name": "305", "stdin": "305\n", "expect": "8"},
                       {"name": "big", "stdin": "9" * 2000 + "\n", "hidden": True}],
             "require": ["sum"], "forbid": []},
        ],
    }


def write_lesson(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "lesson.json"
    path.write_text(json.dumps(data, indent=1))
    return path


def test_an_imported_lesson_writes_exercises_and_references_that_validate(tmp_path: Path) -> None:
    exercises = tmp_path / "course" / "exercises"
    result = run_cli("import", write_lesson(tmp_path, lesson()), "--exercises", exercises)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(p.name for p in exercises.iterdir()) == ["digit-sum.yaml", "digits-predict.yaml",
                                                           "digits-program.yaml"]
    function = yaml.safe_load((exercises / "digit-sum.yaml").read_text())
    assert function["kind"] == "function" and function["entry"] == "digit_sum"
    assert function["starter"] == "def digit_sum(n):\n    pass\n"
    assert function["forbid"] == [{"name": "eval", "message": "add the digits one by one"}]
    assert function["tests"][0] == {"name": "print(digit_sum(305))", "call": "print(digit_sum(305))",
                                    "compare": "output", "expect": "8"}
    assert function["tests"][1] == {"name": "digit_sum(0)", "call": "digit_sum(0)", "expect": 0}
    assert function["tests"][3] == {"name": "digit_sum(7 ** 5000)", "call": "digit_sum(7 ** 5000)",
                                    "hidden": True, "big": True}
    predict = yaml.safe_load((exercises / "digits-predict.yaml").read_text())
    assert predict["snippet"].startswith("for d in str(305)") and predict["tests"][0]["expect"] == "3 6\n0 0\n5 10"
    program = yaml.safe_load((exercises / "digits-program.yaml").read_text())
    assert program["kind"] == "program" and program["require"] == ["sum"]
    reference = tmp_path / "course" / "reference"
    assert (reference / "digit-sum" / "accepted" / "solution.py").read_text().startswith(DIGIT_SUM)
    assert (reference / "digits-predict" / "accepted" / "answer.txt").read_text() == "3 6\n0 0\n5 10\n"

    validated = run_cli("validate", "--exercises", exercises)
    assert validated.returncode == 0, validated.stdout
    assert "✓ every exercise is valid (3 of 3" in validated.stdout


def test_unknown_and_missing_keys_are_reported_together_with_where_they_are(tmp_path: Path) -> None:
    data = lesson()
    data["titel"] = data.pop("title")
    del data["more"][0]["tests"][1]["name"]
    data["more"][0]["tests"][2]["retuns"] = data["more"][0]["tests"][2].pop("returns")
    data["more"][1]["kind"] = "essay"
    data["more"][0]["tests"][1]["returns"] = "yes"
    result = run_cli("import", write_lesson(tmp_path, data), "--exercises", tmp_path / "exercises")
    assert result.returncode == 3
    out = flat(result.stdout)
    lesson_path = tmp_path / "lesson.json"
    for problem in (f"{lesson_path}: unknown key 'titel' (did you mean 'title'?)",
                    f"{lesson_path}: missing key 'title'",
                    f"{lesson_path}: more[0].tests[1]: missing key 'name'",
                    f"{lesson_path}: more[0].tests[1].returns: must be true or false, not 'yes'",
                    f"{lesson_path}: more[0].tests[2]: unknown key 'retuns' (did you mean 'returns'?)",
                    f"{lesson_path}: more[1].kind: unknown kind 'essay'; known kinds: predict, code",
                    "problems in the lesson; nothing was written"):
        assert problem in out, out
    assert not (tmp_path / "exercises").exists()


def test_a_returns_expectation_must_be_a_python_literal(tmp_path: Path) -> None:
    data = lesson()
    data["more"][0]["tests"][1]["expect"] = "zero"
    result = run_cli("import", write_lesson(tmp_path, data), "--exercises", tmp_path / "exercises")
    assert result.returncode == 3
    assert "more[0].tests[1].expect: with 'returns' it must be a Python literal, not 'zero'" in flat(result.stdout)


def test_invalid_json_names_the_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "lesson.json"
    path.write_text('{"title": "x",\n "task" "y"}')
    result = run_cli("import", path, "--exercises", tmp_path / "exercises")
    assert result.returncode == 3
    assert f"{path}:2:9: invalid JSON: Expecting ':' delimiter" in flat(result.stdout)  # however long tmp_path is


def test_existing_exercises_are_not_overwritten_without_force(tmp_path: Path) -> None:
    lesson_path = write_lesson(tmp_path, lesson())
    exercises = tmp_path / "exercises"
    assert run_cli("import", lesson_path, "--exercises", exercises).returncode == 0
    again = run_cli("import", lesson_path, "--exercises", exercises)
    assert again.returncode == 3
    assert "digit-sum.yaml exists; pass --force to overwrite it" in flat(again.stdout)
    assert run_cli("import", lesson_path, "--exercises", exercises, "--force").returncode == 0


@pytest.mark.skipif(not SEED_LESSON.exists(), reason="the seed lessons (../shared/seeds) are not here")
def test_the_seed_lesson_imports_and_validates(tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    result = run_cli("import", SEED_LESSON, "--exercises", exercises)
    assert result.returncode == 0, result.stdout + result.stderr
    seed = json.loads(SEED_LESSON.read_text())
    assert len(list(exercises.glob("*.yaml"))) == 1 + len(seed["more"])
    validated = run_cli("validate", "--exercises", exercises, timeout=300)
    assert validated.returncode == 0, validated.stdout
    # every test of the lesson is there, and hidden where the lesson hides it
    for spec in exercises.glob("*.yaml"):
        loaded = yaml.safe_load(spec.read_text())
        task = next(t for t in [seed, *seed["more"]] if t["seed"] == loaded.get("starter", t["seed"])
                    and (t["kind"] == "predict") == (loaded["kind"] == "predict"))
        assert [t["name"] for t in loaded["tests"]] == [t["name"] for t in task["tests"]]
        assert [bool(t.get("hidden")) for t in loaded["tests"]] == [t["hidden"] for t in task["tests"]]
