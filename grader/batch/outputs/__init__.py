"""What a batch writes, each from the database alone: a new format is a new module plus one line here."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.batch.gradebook import Gradebook

Writer = Callable[["Gradebook", Path], list[Path]]

# name -> module with a `write(book, out)`; imported when written, so the CLI starts without jinja2.
OUTPUTS: dict[str, str] = {
    "csv": "grader.batch.outputs.csv_gradebook",
    "json": "grader.batch.outputs.json_export",
    "gradescope": "grader.batch.outputs.gradescope",
    "junit": "grader.batch.outputs.junit",
    "html": "grader.batch.outputs.html",
}


def writer(name: str) -> Writer:
    return import_module(OUTPUTS[name]).write  # type: ignore[no-any-return]
