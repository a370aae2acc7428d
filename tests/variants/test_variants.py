"""Variants (`params:`): a student's variant is the same through every entry point and after a restart, an
edit of a statement moves no score, `validate --variants` catches a reference wrong for one value, and a
hand-in that solves a classmate's variant is flagged in a batch and on the server. A tiny course of its own:
`shift(x)` returns x + k, k drawn per student from 1 to 9."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from grader.errors import SpecError
from grader.spec import load_exercise
from tests.conftest import run_cli
from tests.server.conftest import Served, signed_in

GENERATORS = '''import random


def offset(seed, low=1, high=9):
    return {"k": random.Random(seed).randint(low, high)}


def hangs(seed):
    while True:
        pass


def raises(seed):
    raise ValueError("no board for this seed")


def not_data(seed):
    return {"k": len}


def huge(seed):
    return {"k": 10 ** 40}


def not_a_mapping(seed):
    return [1, 2, 3]
'''

SPEC = '''title: Shift
kind: function
entry: shift
params:
  generator: {generator}
statement: |
  Write `shift(x)`, which returns x + {{{{ k }}}}.
starter: |
  def shift(x):
      return x  # add {{{{ k }}}}
tests:
  - name: shift(1)
    call: shift(1)
  - name: hidden one
    call: shift(40)
    hidden: true
'''

RIGHT = "def shift(x):\n    return x + {{ k }}\n"


def write_course(root: Path, generator: str = "offset") -> Path:
    exercises = root / "exercises"
    exercises.mkdir(parents=True, exist_ok=True)
    (exercises / "generators.py").write_text(GENERATORS)
    (exercises / "shift.yaml").write_text(SPEC.format(generator=generator))
    (exercises / "variants.secret").write_text("a-course-secret-for-tests\n")
    accepted = root / "reference" / "shift" / "accepted"
    accepted.mkdir(parents=True, exist_ok=True)
    (accepted / "right.py").write_text(RIGHT)
    return exercises


def k_of(exercises: Path, student: str) -> int:
    result = run_cli("show", "shift", "--exercises", exercises, "--student", student)
    assert result.returncode == 0, result.stderr
    return int(result.stdout.split("x + ")[1].split()[0].rstrip("."))


def solution(k: int) -> str:
    return f"def shift(x):\n    return x + {k}\n"


def two_students(exercises: Path) -> tuple[tuple[str, int], tuple[str, int]]:
    """Two students with different variants."""
    first = ("ann", k_of(exercises, "ann"))
    for name in ("ben", "cat", "dan", "eve", "fay"):
        k = k_of(exercises, name)
        if k != first[1]:
            return first, (name, k)
    raise AssertionError("every student drew the same k")


def check_json(exercises: Path, path: Path, student: str) -> dict:
    result = run_cli("check", "shift", path, "--exercises", exercises, "--student", student, "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def batch(exercises: Path, submissions: Path, out: Path, *extra: str) -> dict:
    result = run_cli("batch", submissions, "--exercises", exercises, "--out", out, "--outputs", "json,similarity",
                     *extra)
    assert result.returncode == 0, result.stderr + result.stdout
    grades = json.loads((out / "grades.json").read_text())
    return {s["student"]: s["exercises"]["shift"] for s in grades["students"]}


def test_variant_is_the_same_in_every_process_and_check_grades_against_it(tmp_path: Path) -> None:
    exercises = write_course(tmp_path)
    (ann, k), (ben, other) = two_students(exercises)
    assert k_of(exercises, ann) == k  # a second process: nothing stored, the same seed
    mine = tmp_path / "mine.py"
    mine.write_text(solution(k))
    passed = check_json(exercises, mine, ann)
    assert passed["score"] == passed["max_score"] == 2 and len(passed["variant"]) == 8
    as_ben = check_json(exercises, mine, ben)
    assert as_ben["score"] < as_ben["max_score"] and as_ben["variant"] != passed["variant"]
    by_variable = run_cli("check", "shift", mine, "--exercises", exercises, "--format", "json",
                          env={"GRADER_STUDENT": ann})
    assert json.loads(by_variable.stdout)["variant"] == passed["variant"]
    bundle = tmp_path / "bundle"  # made for ann: her variant written out, no secret and no reference in it
    made = run_cli("export", "--exercises", exercises, "--student", bundle, "--as-student", ann)
    assert made.returncode == 0, made.stderr
    assert f"x + {k}" in (bundle / "exercises" / "shift.yaml").read_text()
    assert not (bundle / "exercises" / "variants.secret").exists()
    in_bundle = run_cli("check", "shift", mine, "--format", "json", cwd=bundle)
    assert json.loads(in_bundle.stdout)["score"] == 1  # the visible test; the hidden one runs at grading time


def test_an_edited_statement_changes_no_score_and_a_copy_is_flagged_in_the_batch(tmp_path: Path) -> None:
    exercises = write_course(tmp_path)
    (ann, k_ann), (ben, k_ben) = two_students(exercises)
    submissions = tmp_path / "class"
    for student, code in ((ann, solution(k_ben)), (ben, solution(k_ben))):  # ann hands in ben's answer
        (submissions / student).mkdir(parents=True)
        (submissions / student / "shift.py").write_text(code)
    first = batch(exercises, submissions, tmp_path / "out")
    assert first[ben]["score"] == 2 and "solves_variant_of" not in first[ben]
    assert first[ann]["score"] < 2 and first[ann]["solves_variant_of"] == ben
    similarity = (tmp_path / "out" / "similarity" / "index.html").read_text()
    assert f"<td>shift</td><td>{ann}</td><td>{ben}</td>" in similarity  # the wrong-variants table
    mine = tmp_path / "ann.py"
    mine.write_text(solution(k_ann))
    assert first[ann]["variant"] == check_json(exercises, mine, ann)["variant"]  # batch and check agree

    spec = exercises / "shift.yaml"
    spec.write_text(spec.read_text().replace("returns x + {{ k }}.", "returns x + {{ k }}, an int."))
    again = batch(exercises, submissions, tmp_path / "out", "--regrade")
    assert {s: (g["score"], g["variant"]) for s, g in again.items()} == \
           {s: (g["score"], g["variant"]) for s, g in first.items()}


def test_validate_variants_fails_when_a_reference_is_wrong_for_one_value(tmp_path: Path) -> None:
    exercises = write_course(tmp_path)
    accepted = tmp_path / "reference" / "shift" / "accepted"
    (accepted / "wrong_for_seven.py").write_text(
        "def shift(x):\n    return x + {{ k }} + (1 if {{ k }} == 7 else 0)\n")
    result = run_cli("validate", "--exercises", exercises, "--variants", "50", "--jobs", "1", timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    text = " ".join((result.stdout + result.stderr).split())
    assert "wrong_for_seven.py" in text and "k=7" in text
    assert "right.py" not in text.split("wrong_for_seven.py")[1].split("k=7")[0]


@pytest.mark.parametrize(("generator", "said"), [
    ("hangs", "did not finish within"),
    ("raises", "ValueError"),
    ("not_data", "k = a builtin_function_or_method"),
    ("huge", "k = a number of 41 digits"),
    ("not_a_mapping", "returned a list"),
], ids=["hangs", "raises", "returns-a-function", "returns-a-huge-number", "returns-a-list"])
def test_a_broken_params_generator_is_an_authoring_error_naming_file_and_key(tmp_path: Path, generator: str,
                                                                          said: str) -> None:
    exercises = write_course(tmp_path, generator)
    result = run_cli("show", "shift", "--exercises", exercises, "--student", "ann")
    assert result.returncode == 3, result.stdout
    assert f"shift.yaml:5:3: params: generator '{generator}' of generators.py" in result.stderr
    assert said in result.stderr and "Traceback" not in result.stderr


def test_params_are_checked_when_the_spec_loads(tmp_path: Path) -> None:
    exercises = write_course(tmp_path, "no_such_function")
    with pytest.raises(SpecError, match=r"shift.yaml:5:\d+: params: generators.py defines no function "
                                        r"'no_such_function'"):
        load_exercise(exercises / "shift.yaml")
    (exercises / "shift.yaml").write_text(SPEC.format(generator="offset").replace(
        "generator: offset", "generator: offset\n  args: {seed: 3}"))
    with pytest.raises(SpecError, match="not 'seed', which the grader passes"):
        load_exercise(exercises / "shift.yaml")


def test_no_secret_says_where_to_put_one(tmp_path: Path) -> None:
    exercises = write_course(tmp_path)
    (exercises / "variants.secret").unlink()
    env = {k: v for k, v in os.environ.items() if k != "GRADER_COURSE_SECRET"}
    result = run_cli("show", "shift", "--exercises", exercises, "--student", "ann", env=env)
    assert result.returncode == 3 and "GRADER_COURSE_SECRET" in result.stderr and "variants.secret" in result.stderr


def test_the_server_grades_each_student_on_their_variant_and_flags_a_copy(tmp_path: Path) -> None:
    exercises = write_course(tmp_path)
    (ann, k_ann), (ben, k_ben) = two_students(exercises)
    served = Served(tmp_path, tmp_path / "state", exercises)
    try:
        served.start()
        first = {}
        for student, code in ((ben, solution(k_ben)), (ann, solution(k_ben))):
            token = served.token(student)
            number = served.submit(token, "shift", code).body["id"]
            first[student] = served.wait(token, number)["report"]
        assert first[ben]["score"] == 2 and first[ann]["score"] < 2
        statement = served.call("GET", "/exercises/shift", headers=signed_in(served.token(ann))).body
        assert f"x + {k_ann}" in statement and "{{" not in statement  # the caller's own variant
        page = served.call("GET", f"/staff/students/{ann}", headers=signed_in(served.token("prof", staff=True)))
        assert page.status == 200 and f"solves {ben}'s variant" in page.body
        report = served.call("GET", "/staff/similarity", headers=signed_in(served.token("prof", staff=True)))
        assert report.status == 200 and f"<td>shift</td><td>{ann}</td><td>{ben}</td>" in report.body
        served.stop()
        served.start()  # a restart: nothing stored about variants, the same one is computed
        token = served.token(ann)
        number = served.submit(token, "shift", solution(k_ann)).body["id"]
        again = served.wait(token, number)["report"]
        assert again["score"] == 2
        mine = tmp_path / "ann.py"
        mine.write_text(solution(k_ann))
        assert check_json(exercises, mine, ann)["variant"] == first[ann].get("variant", again.get("variant"))
    finally:
        served.stop()
