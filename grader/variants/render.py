"""A variant's exercise: every text of the spec a student or a test reads (statement, hints, starter,
prelude, test_setup, each test's call, input, written expectations, steps and files) and the accepted
reference rendered as jinja2 templates with the variant's values. Test names are not rendered: a test is the
same test in every variant (the class's pass rates, the analytics and the regrade requests name it)."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

from grader.errors import SpecProblem
from grader.model import Exercise, Test
from grader.variants.draw import ParamsError

_MARKS = ("{{", "{%", "{#")  # a text without them is no template: left as it is


@cache
def _environment():  # type: ignore[no-untyped-def]
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    environment = SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)
    environment.filters["repr"] = repr  # `{{ word | repr }}`: a value as Python code writes it
    return environment


class _Renderer:
    def __init__(self, exercise: Exercise, values: dict[str, object]) -> None:
        self.exercise = exercise
        self.values = values

    def text(self, text: str, where: str) -> str:
        if not any(mark in text for mark in _MARKS):
            return text
        from jinja2 import TemplateError

        try:
            return str(_environment().from_string(text).render(self.values))
        except TemplateError as error:
            line = self.exercise.params.line if self.exercise.params else 1
            raise ParamsError([SpecProblem(self.exercise.path, line, 1, f"{where}: the template cannot be "
                                           f"rendered with this variant's params "
                                           f"({', '.join(sorted(self.values))}): {error}")]) from None

    def data(self, value: object, where: str) -> object:
        """Written data (an expect, a given value): its text leaves rendered."""
        if isinstance(value, str):
            return self.text(value, where)
        if isinstance(value, list):
            return [self.data(v, where) for v in value]
        if isinstance(value, tuple):
            return tuple(self.data(v, where) for v in value)
        if isinstance(value, dict):
            return {k: self.data(v, where) for k, v in value.items()}
        return value

    def test(self, test: Test) -> Test:
        where = f"test '{test.name}'"
        changes: dict[str, object] = {
            "call": test.call and self.text(test.call, f"{where}: call"),
            "stdin": test.stdin and self.text(test.stdin, f"{where}: stdin"),
            "expect": self.data(test.expect, f"{where}: expect"),
            "description": self.text(test.description, f"{where}: description"),
            "given": tuple((name, self.data(value, f"{where}: given {name}")) for name, value in test.given),
            "steps": tuple(replace(step, code=self.text(step.code, f"{where}: steps"),
                                   expect=self.data(step.expect, f"{where}: steps"),
                                   equals=step.equals and self.text(step.equals, f"{where}: steps"))
                           for step in test.steps),
        }
        if test.io is not None:
            io = test.io
            changes["io"] = replace(io, args=tuple(self.text(a, f"{where}: args") for a in io.args),
                                    files=tuple((n, self.text(t, f"{where}: files")) for n, t in io.files),
                                    expect_files=tuple((n, self.text(t, f"{where}: expect_files"))
                                                       for n, t in io.expect_files))
        return replace(test, **changes)  # type: ignore[arg-type]


def render(exercise: Exercise, values: dict[str, object], variant: str, reference: Path | None) -> Exercise:
    """The exercise as the variant's student reads it and its tests run; `reference`: the accepted
    reference, rendered too (its expected answers are the variant's)."""
    renderer = _Renderer(exercise, values)
    reference_text = ""
    if reference is not None and reference.is_file():
        reference_text = renderer.text(reference.read_text(encoding="utf-8"), f"the reference {reference.name}")
    return replace(
        exercise,
        statement=renderer.text(exercise.statement, "statement"),
        starter=renderer.text(exercise.starter, "starter"),
        hints=tuple(renderer.text(h, "hints") for h in exercise.hints),
        prelude=renderer.text(exercise.prelude, "prelude"),
        test_setup=renderer.text(exercise.test_setup, "test_setup"),
        snippet=renderer.text(exercise.snippet, "snippet"),
        tests=tuple(renderer.test(t) for t in exercise.tests),
        variant=variant,
        reference_text=reference_text,
    )


def render_reference(exercise: Exercise, values: dict[str, object], source: str, name: str) -> str:
    """Another reference (a wrong or slow one, `grader validate --variants`) as this variant's."""
    return _Renderer(exercise, values).text(source, f"the reference {name}")
