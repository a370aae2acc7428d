"""Subcommands: each module has add_parser(subparsers), which sets `run` to a function(args) -> exit code.

COMMANDS names each module's commands, so the command line imports and builds only the module of the
command it was given (the others' imports, kinds and output formats among them, are a large part of a start).
A new command is a function in a module here plus its name in that module's row."""

from __future__ import annotations

import importlib
from types import ModuleType

COMMANDS: dict[str, tuple[str, ...]] = {
    "student": ("list", "show", "start", "hint", "check", "login"),
    "authoring": ("validate", "calibrate", "import", "export", "new"),
    "batch": ("batch",),
    "similar": ("similar",),
    "analytics": ("analytics",),
    "platforms": ("gradescope-run", "prairielearn-run"),
    "doctor": ("doctor",),
    "environment": ("env",),
    "server": ("serve", "submit"),
}


def command_modules(command: str | None = None) -> list[ModuleType]:
    """The module that defines `command`, or every command module (for the help, or a name unknown)."""
    names = [module for module, commands in COMMANDS.items() if command in commands] or list(COMMANDS)
    return [importlib.import_module(f"grader.commands.{name}") for name in names]
