"""Test forms: how one test is run and judged (a call, an expected exception, steps on one object, a program
with arguments and files). A new form is one module defining a TestForm plus one line in FORMS (a
grader.registry); the spec picks a test's form by the keys it writes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.forms.base import TestForm
from grader.registry import Registry

if TYPE_CHECKING:
    from grader.model import Test

FORMS: Registry[TestForm] = Registry({
    "call": TestForm(),
    "raises": "grader.forms.raises:RaisesForm",
    "steps": "grader.forms.steps:StepsForm",
    "program-io": "grader.forms.program_io:ProgramIOForm",
}, instantiate=True, what="test form")

# Keys every form may take beside its own: the inputs `given` to a call or steps, and what a student reads.
COMMON_KEYS = ("given", "feedback", "description")


def form_keys() -> tuple[str, ...]:
    """Every form's own keys (the spec's reader asks; it imports every form)."""
    return tuple(key for form in FORMS.values() for key in form.keys)


def form_of(test: Test) -> TestForm:
    return FORMS[test.form]


def request_fields(test: Test) -> dict[str, object]:
    """The harness request's fields for this test's form and its `given` names (generated ones made now)."""
    fields = FORMS[test.form].request(test)
    if test.given:
        from grader.forms.given import given_request

        fields.update(given_request(test))
    return fields


__all__ = ["COMMON_KEYS", "FORMS", "form_keys", "TestForm", "form_of", "request_fields"]
