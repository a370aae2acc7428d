"""Errors the grader reports to people: a broken spec, a bad command line. Anything else is a bug."""

from __future__ import annotations

from pathlib import Path

from grader.records import record


class GraderError(Exception):
    """Base of the errors shown to the user as a message, without a traceback."""


@record
class SpecProblem:
    """One thing wrong in a spec file, in the compiler format editors make clickable."""

    path: Path
    line: int  # 1-based
    column: int  # 1-based
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"


class SpecError(GraderError):
    """A spec file (or several) could not be loaded; carries every problem found, not just the first."""

    def __init__(self, problems: list[SpecProblem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class UsageError(GraderError):
    """The command line asks for something that does not exist or cannot be done."""
