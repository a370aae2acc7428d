"""Submission kinds: what a student hands in and how it is run and compared. A new kind is one module
defining a `SubmissionKind` plus one line in KINDS; the rest of the grader asks the kind, never which it is."""

from __future__ import annotations

from grader.kinds.base import SpecReader, SubmissionKind
from grader.registry import Registry

KINDS: Registry[SubmissionKind] = Registry({
    "function": "grader.kinds.function:FunctionKind",
    "program": "grader.kinds.program:ProgramKind",
    "predict": "grader.kinds.predict:PredictKind",
}, instantiate=True)


def kind_of(name: str) -> SubmissionKind:
    """The kind registered under `name` (an exercise's `kind`); KeyError for an unknown one."""
    return KINDS[name]


__all__ = ["KINDS", "SpecReader", "SubmissionKind", "kind_of"]
