"""The command line: every command with its options, its help, and its usage on a bad argument."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from grader.cli import build_parser, main
from grader.commands import authoring
from grader.commands.student import run_check
from grader.exit_codes import ExitCode
from tests.conftest import run_cli

COMMANDS = ("list", "show", "start", "hint", "check", "validate", "calibrate", "import", "export", "new", "batch",
            "doctor", "serve", "submit")


def test_a_command_gets_its_options() -> None:
    argv = ["check", "count-queens", "mine.py", "--format", "json", "--all"]
    args = build_parser().parse_args(argv)
    assert (args.exercise, args.submission, args.format, args.all, args.run) == (
        "count-queens", "mine.py", "json", True, run_check)


@pytest.mark.parametrize("argv", [("--help",), ("--help", "check"), ("-h", "batch", "x")])
def test_help_lists_every_command(argv: tuple[str, ...]) -> None:
    result = run_cli(*argv)
    assert result.returncode == 0
    for command in COMMANDS:
        assert f"    {command}" in result.stdout


def test_an_unknown_command_is_a_usage_error_that_lists_the_commands() -> None:
    result = run_cli("chek", "count-queens")
    assert result.returncode == 2
    assert "invalid choice: 'chek'" in result.stderr and "'check'" in result.stderr


def test_a_command_without_its_arguments_shows_its_own_usage() -> None:
    result = run_cli("check")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: grader check")


def test_a_bad_argument_shows_the_usage_of_its_command() -> None:
    result = run_cli("check", "count-queens", "no-such-file.py")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: grader check") and "error: no file no-such-file.py" in result.stderr


def test_the_installed_command_and_python_m_share_one_entry() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["grader"] == "grader.__main__:run"
    probe = "import grader.__main__ as entry; print(entry.run.__module__)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["grader.__main__"]  # and importing the entry ran no command


def test_a_commands_help_fits_the_width_in_columns() -> None:
    result = run_cli("check", "--help", env={"COLUMNS": "50"})
    assert result.returncode == 0
    assert max(len(line) for line in result.stdout.splitlines()) <= 50
    assert "EXERCISE SUBMISSION" in result.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_shows_its_own_help(command: str) -> None:
    result = run_cli(command, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith(f"usage: grader {command}")


def test_commands_answer_with_an_exit_code_member(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) is ExitCode.OK
    assert main(["check", "count-queens", "no-such-file.py"]) is ExitCode.USAGE_ERROR
    capsys.readouterr()
