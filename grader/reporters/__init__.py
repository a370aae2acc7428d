"""Reporters render a Report to a stream; a new format is a new module plus one line here."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Protocol, TextIO

if TYPE_CHECKING:
    from grader.model import Report


class Reporter(Protocol):
    def render(self, report: Report, out: TextIO) -> None: ...


# name -> "module:class"; imported on use, so `--format json` never pays for rich.
REPORTERS: dict[str, str] = {
    "terminal": "grader.reporters.terminal:TerminalReporter",
    "json": "grader.reporters.json_report:JsonReporter",
}


def reporter(name: str) -> Reporter:
    module, _, cls = REPORTERS[name].partition(":")
    return getattr(import_module(module), cls)()  # type: ignore[no-any-return]
