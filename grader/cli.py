"""Command line: argv -> a command -> an exit code. The only module that reads argv; grader/__main__.py runs
it as the `grader` process."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from grader.commands import command_adders
from grader.errors import SpecError, UsageError
from grader.exit_codes import ExitCode


class _Formatter(argparse.HelpFormatter):
    """argparse's help, as wide as the terminal. Measured here because argparse measures it with shutil,
    imported (with its archive modules) for every parser at every start; a check never needs shutil."""

    def __init__(self, prog: str, **kwargs: int) -> None:
        written = os.environ.get("COLUMNS", "")
        columns = int(written) if written.isdigit() else 0
        if columns <= 0:  # as shutil.get_terminal_size: COLUMNS, else the terminal's, else 80
            try:
                columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
            except (AttributeError, ValueError, OSError):
                columns = 80
        super().__init__(prog, width=max(columns, 20) - 2, **kwargs)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The command line for `argv`: the named command with its options, or every command when none is named
    first (`grader --help`, a name unknown)."""
    parser = _Parser(prog="grader", description="Grade Python exercises in a sandbox.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add_parser in command_adders(_named_command(argv)):
        add_parser(subparsers)
    return parser


def _named_command(argv: Sequence[str]) -> str | None:
    """The command word of argv when only --debug comes before it; None for anything else (a help first)."""
    for word in argv:
        if word != "--debug":
            return None if word.startswith("-") else word
    return None


def main(argv: Sequence[str] | None = None) -> ExitCode:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)  # exits with status 2 and a usage message on a bad command line
    try:
        return ExitCode(args.run(args))
    except UsageError as error:
        _parser_of(parser, args.command).print_usage(sys.stderr)
        print(f"error: {_shown(error)}", file=sys.stderr)
        return ExitCode.USAGE_ERROR
    except SpecError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        count = len(error.problems)
        print(f"{count} problem{'s' if count != 1 else ''} in the exercise spec", file=sys.stderr)
        return ExitCode.SPEC_ERROR
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as error:  # noqa: BLE001 - a bug in the grader: say so plainly, exit 4
        if args.debug:
            import traceback  # only here: a crash is rare, every start is not

            traceback.print_exc()
        print(f"internal error: {type(error).__name__}: {_shown(error)} (run with --debug for the traceback)",
              file=sys.stderr)
        return ExitCode.INTERNAL_ERROR


def _shown(error: BaseException) -> str:
    """An error's message as a terminal may print it: it can quote a student's name, file or output."""
    from grader.text import escape_controls  # only on an error: every start does not pay for it

    return escape_controls(str(error))


def _parser_of(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The named command's own parser, whose usage line fits an error in its arguments."""
    commands = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)  # noqa: SLF001
    return commands.choices.get(command, parser) if commands else parser  # type: ignore[no-any-return]

