"""Subcommands: each module has add_parser(subparsers), which sets `run` to a function(args) -> exit code.

COMMANDS (a grader.registry) names the function that adds each command, so the command line imports and
builds only the module of the command it was given (the others' imports, kinds and output formats among
them, are a large part of a start). A new command is a function in a module here plus its name in that
module's row (a new module: a new row)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from grader.registry import Registry

AddParser = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

# Each module's commands, in the order `grader --help` lists them. A platform's runner is its platform's own
# module (grader/platforms/<platform>/command.py).
ROWS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("grader.commands.student", ("list", "show", "start", "hint", "check", "login")),
    ("grader.commands.authoring", ("validate", "calibrate", "import", "export", "new")),
    ("grader.commands.batch", ("batch",)),
    ("grader.commands.similar", ("similar",)),
    ("grader.commands.analytics", ("analytics",)),
    ("grader.platforms.gradescope.command", ("gradescope-run",)),
    ("grader.platforms.prairielearn.command", ("prairielearn-run",)),
    ("grader.commands.doctor", ("doctor",)),
    ("grader.commands.environment", ("env",)),
    ("grader.commands.server", ("serve", "submit")),
)
COMMANDS: Registry[AddParser] = Registry({command: f"{module}:add_parser" for module, commands in ROWS
                                          for command in commands}, what="command")


def command_adders(command: str | None = None) -> list[AddParser]:
    """What adds `command` (and its module's other commands) to the command line, or every command's (for
    the help, or a name unknown), each once."""
    if command is not None and command in COMMANDS:
        return [COMMANDS[command]]
    adders: list[AddParser] = []
    for adder in COMMANDS.values():
        if adder not in adders:
            adders.append(adder)
    return adders
