"""Subcommands: each module has add_parser(subparsers), which sets `run` to a function(args) -> exit code."""

from __future__ import annotations

from types import ModuleType

from grader.commands import student

COMMANDS: list[ModuleType] = [student]
from grader.commands import authoring; COMMANDS.append(authoring)  # noqa: E402, E702 - validate, calibrate, import, export, new
from grader.commands import batch; COMMANDS.append(batch)  # noqa: E402, E702 - grader batch: a whole class
from grader.commands import doctor; COMMANDS.append(doctor)  # noqa: E402, E702 - grader doctor: the sandbox layers
