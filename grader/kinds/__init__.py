"""Submission kinds: what a student hands in and how it is run and compared. A new kind is one module
defining a `SubmissionKind` plus one line in KINDS; the rest of the grader asks the kind, never which it is."""

from __future__ import annotations

from grader.kinds.base import SubmissionKind, SpecReader
from grader.kinds.function import FunctionKind
from grader.kinds.predict import PredictKind
from grader.kinds.program import ProgramKind

KINDS: dict[str, SubmissionKind] = {
    "function": FunctionKind(),
    "program": ProgramKind(),
    "predict": PredictKind(),
}


def kind_of(name: str) -> SubmissionKind:
    """The kind registered under `name` (an exercise's `kind`); KeyError for an unknown one."""
    return KINDS[name]


__all__ = ["KINDS", "SpecReader", "SubmissionKind", "kind_of"]
