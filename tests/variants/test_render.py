"""Rendering a variant: the spec's texts are jinja2 templates in a sandboxed environment with strict names;
test names stay as written; a template that cannot be rendered is an authoring error naming file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.errors import SpecError
from grader.spec import load_exercise
from grader.variants.render import render
from tests.variants.test_variants import SPEC, write_course


def exercise_with(tmp_path: Path, statement: str = "Add {{ k }}.", call: str = "shift({{ k }})"):  # type: ignore[no-untyped-def]
    exercises = write_course(tmp_path)
    spec = SPEC.format(generator="offset").replace("Write `shift(x)`, which returns x + {{ k }}.", statement)
    (exercises / "shift.yaml").write_text(spec.replace("call: shift(1)", f"call: {call}"))
    return load_exercise(exercises / "shift.yaml")


def test_texts_calls_starter_and_reference_are_rendered_but_test_names_are_not(tmp_path: Path) -> None:
    exercise = exercise_with(tmp_path)
    reference = tmp_path / "reference" / "shift" / "accepted" / "right.py"
    variant = render(exercise, {"k": 7}, "0123abcd", reference)
    assert variant.statement.strip() == "Add 7." and "add 7" in variant.starter
    assert variant.tests[0].call == "shift(7)" and variant.tests[0].name == "shift(1)"
    assert variant.reference_text == "def shift(x):\n    return x + 7\n" and variant.variant == "0123abcd"


@pytest.mark.parametrize(("statement", "said"), [
    ("Add {{ kk }}.", "'kk' is undefined"),
    ("Add {{ k.__class__.__mro__ }}.", "unsafe"),
    ("Add {% if k %}.", "statement: the template cannot be rendered"),
], ids=["misspelt-name", "escape-attempt", "broken-template"])
def test_a_template_that_cannot_be_rendered_names_the_spec_and_the_key(tmp_path: Path, statement: str,
                                                                      said: str) -> None:
    exercise = exercise_with(tmp_path, statement)
    with pytest.raises(SpecError) as raised:
        render(exercise, {"k": 7}, "0123abcd", None)
    problem = str(raised.value.problems[0])
    assert problem.startswith(f"{exercise.path}:5:") and "statement" in problem and said in problem


def test_a_call_with_a_misspelt_name_names_its_test(tmp_path: Path) -> None:
    exercise = exercise_with(tmp_path, call="shift({{ q }})")
    with pytest.raises(SpecError, match=r"test 'shift\(1\)': call: .*'q' is undefined"):
        render(exercise, {"k": 7}, "0123abcd", None)
