"""The record of a spec's `params:` (grader.variants), a leaf below the model so the model can carry it."""

from __future__ import annotations

from pathlib import Path

from grader.records import record


@record
class Params:
    """`params:` of a spec: a function of the course's generators.py that draws a variant's named values
    from a seed (grader.variants); `line` and `column` say where the spec wrote it, for authoring errors."""

    source: Path  # the generators.py file beside the spec
    generator: str
    args: tuple[tuple[str, object], ...] = ()
    line: int = 0
    column: int = 0
