"""Submission kinds: what a student hands in and how it is run and compared. A new kind is one module
defining a `SubmissionKind` plus one line in KINDS (a grader.registry); the rest of the grader asks the kind,
never which it is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.kinds.base import SpecReader, SubmissionKind
from grader.registry import Names, Registry

if TYPE_CHECKING:
    from grader.model import Exercise

KINDS: Registry[SubmissionKind] = Registry({
    "function": "grader.kinds.function:FunctionKind",
    "program": "grader.kinds.program:ProgramKind",
    "predict": "grader.kinds.predict:PredictKind",
}, instantiate=True, what="kind")
# The shapes `grader new --form` writes, each kind's `scaffold_forms` ("class": a class tested by sequences of
# steps, "files": a program run with arguments that reads and writes files), read from KINDS when asked.
SCAFFOLD_FORMS = Names(lambda: tuple(dict.fromkeys(form for kind in KINDS.values() for form in kind.scaffold_forms)),
                       lambda form: any(form in kind.scaffold_forms for kind in KINDS.values()))


def kind_of(name: str) -> SubmissionKind:
    """The kind registered under `name` (an exercise's `kind`); KeyError for an unknown one."""
    return KINDS[name]


def visible_inputs(exercise: Exercise) -> dict[str, str]:
    """Each visible test's input as a student's report shows it (`grader check`, the server's pages): its
    call, generated values, argv, files or stdin, as its form writes it."""
    if not kind_of(exercise.kind).lists_tests:
        return {}
    from grader.forms import form_of

    given = {t.name: form_of(t).shown_input(t) for t in exercise.tests if not t.hidden}
    return {name: text for name, text in given.items() if text}


__all__ = ["KINDS", "SCAFFOLD_FORMS", "SpecReader", "SubmissionKind", "kind_of", "visible_inputs"]
