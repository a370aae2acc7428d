"""Reporters render a Report to a stream; a new format is a new module plus one line here."""

from __future__ import annotations

from typing import Protocol, TextIO

from grader.model import Report
from grader.reporters.json_report import JsonReporter
from grader.reporters.terminal import TerminalReporter


class Reporter(Protocol):
    def render(self, report: Report, out: TextIO) -> None: ...


REPORTERS: dict[str, type[JsonReporter] | type[TerminalReporter]] = {
    "terminal": TerminalReporter,
    "json": JsonReporter,
}
