"""What a batch writes, each from the database alone: a new format is a new module plus one line here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from grader.batch.gradebook import Gradebook
from grader.batch.outputs import csv_gradebook, gradescope, html, json_export, junit

Writer = Callable[[Gradebook, Path], list[Path]]

OUTPUTS: dict[str, Writer] = {
    "csv": csv_gradebook.write,
    "json": json_export.write,
    "gradescope": gradescope.write,
    "junit": junit.write,
    "html": html.write,
}
