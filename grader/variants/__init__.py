"""Variants: a spec's `params:` draw named values per student from a seed derived from the course's secret,
the exercise and the student (seed.py), in the sandbox (draw.py), and the spec's texts and its accepted
reference are rendered with them (render.py). Nothing is stored: every entry point computes the same variant.
detect.py is the wrong-variant detector: a hand-in that fails its own variant but passes a classmate's."""

from __future__ import annotations

from grader.errors import SpecProblem
from grader.kinds.base import primary_reference
from grader.model import Exercise
from grader.records import record
from grader.variants.draw import ParamsError, draw
from grader.variants.render import render
from grader.variants.seed import STUDENT_VARIABLE, SecretMissing, Seed, course_secret, seed_of

__all__ = ["ParamsError", "STUDENT_VARIABLE", "SecretMissing", "Variant", "for_student", "variant_of"]


@record
class Variant:
    student: str
    seed: Seed
    values: dict[str, object]
    exercise: Exercise  # rendered for it

    @property
    def id(self) -> str:
        return self.seed.short


def variant_of(exercise: Exercise, student: str) -> Variant:
    """The student's variant of an exercise with params (SecretMissing, ParamsError: the course's to fix)."""
    params = exercise.params
    assert params is not None
    try:
        secret = course_secret(exercise.path.parent)
    except SecretMissing as error:
        raise ParamsError([SpecProblem(exercise.path, params.line, params.column, str(error))]) from None
    seed = seed_of(secret, exercise.id, student)
    return variant_for_seed(exercise, student, seed)


def variant_for_seed(exercise: Exercise, student: str, seed: Seed) -> Variant:
    values = draw(exercise, seed.value)
    return Variant(student, seed, values, render(exercise, values, seed.short, primary_reference(exercise)))


def for_student(exercise: Exercise, student: str | None) -> Exercise:
    """The exercise as `student` is graded on it: their variant when it has params, else itself. Without a
    student, an exercise with params is graded on the variant of the student id "" (said in its report)."""
    if exercise.params is None:
        return exercise
    return variant_of(exercise, student or "").exercise
