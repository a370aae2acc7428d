"""Subcommands: each module has add_parser(subparsers), which sets `run` to a function(args) -> exit code.
Command modules import their heavy dependencies inside `run`, so every command starts fast."""

from __future__ import annotations

from types import ModuleType

from grader.commands import authoring, batch, doctor, platforms, similar, student

COMMANDS: list[ModuleType] = [student, authoring, batch, similar, platforms, doctor]
