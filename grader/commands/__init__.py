"""Subcommands: each module has add_parser(subparsers), which sets `run` to a function(args) -> exit code."""

from __future__ import annotations

from types import ModuleType

from grader.commands import student

COMMANDS: list[ModuleType] = [student]
