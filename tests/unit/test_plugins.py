"""A third party's checker and output format, from a package of its own: built from a pyproject here, installed
with pip (flit_core's backend, no index) into a folder of its own, and used by the real `grader` command run
in a subprocess with that folder on its path. No line of grader/ names them. docs/extending.md tells how."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import Completed

PYPROJECT = """\
[build-system]
requires = ["flit_core>=3.9"]
build-backend = "flit_core.buildapi"

[project]
name = "grader-queens-extras"
version = "1.0"
description = "A checker and an output format for grader"

[project.entry-points."grader.checkers"]
within-one = "grader_queens_extras:within_one"

[project.entry-points."grader.outputs"]
shout = "grader_queens_extras:Shout"
json = "grader_queens_extras:Shout"
broken = "grader_queens_extras.missing:Nothing"
"""

MODULE = '''\
"""A checker that forgives an answer one off, and a report format in capitals."""

from grader.model import CheckResult
from grader.outputs import Output


def within_one(expected, actual):
    close = isinstance(actual, int) and abs(actual - expected) <= 1
    return CheckResult(passed=close, feedback="" if close else f"expected about {expected}")


class Shout(Output):
    def render(self, report, out):
        out.write(f"SHOUT {report.verdict.upper()} {report.exercise} {len(report.outcomes)} TESTS\\n")
'''

SPEC = """\
title: Count the queens roughly
kind: function
entry: count_queens
statement: Return about how many ways 8 queens fit.
checker: within-one
tests:
  - name: eight queens
    call: count_queens(8)
    expect: 92
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package, installed into its own folder as pip installs it: its dist-info holds the entry points."""
    root = tmp_path_factory.mktemp("plugin")
    package = root / "grader-queens-extras"
    (package / "grader_queens_extras").mkdir(parents=True)
    (package / "pyproject.toml").write_text(PYPROJECT)
    (package / "grader_queens_extras" / "__init__.py").write_text(MODULE)
    target = root / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                           "--no-index", "--disable-pip-version-check", "--target", str(target), str(package)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (target / "grader_queens_extras-1.0.dist-info" / "entry_points.txt").is_file()
    return target


def grader(site: Path, *args: object, cwd: Path | None = None) -> Completed:
    """`python -m grader ARGS` with the package's folder on the path, as an installed package is."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(site), os.environ.get("PYTHONPATH"))))}
    done = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=env, check=False)
    return Completed(done.returncode, done.stdout, done.stderr)


def test_a_packages_output_format_is_offered_and_its_bad_entries_are_named(installed: Path) -> None:
    shown = grader(installed, "check", "--help")
    assert shown.returncode == 0
    assert "shout" in " ".join(shown.stdout.split())  # the --format choices, read from the registry
    # Its entry that fails to import, and its entry that takes a built-in's name: each said, neither stops grader.
    assert "plugin 'broken' (grader.outputs = grader_queens_extras.missing:Nothing) of package " \
           "grader-queens-extras 1.0 is left out: it cannot be loaded: ModuleNotFoundError" in shown.stderr
    assert "plugin 'json' (grader.outputs = grader_queens_extras:Shout) of package grader-queens-extras 1.0 " \
           "is refused: grader has its own output format 'json'" in shown.stderr


def test_a_spec_uses_a_packages_checker_and_check_writes_its_format(installed: Path, tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    exercises.mkdir()
    (exercises / "rough-queens.yaml").write_text(SPEC)
    off_by_one = tmp_path / "rough.py"
    off_by_one.write_text(textwrap.dedent("""\
        def count_queens(n):
            return 93
    """))
    done = grader(installed, "check", "rough-queens", off_by_one, "--exercises", exercises, "--format", "shout")
    assert (done.returncode, done.stdout) == (0, "SHOUT PASSED rough-queens 1 TESTS\n"), done.stderr
    json = grader(installed, "check", "rough-queens", off_by_one, "--exercises", exercises, "--format", "json")
    assert json.returncode == 0 and json.stdout.startswith("{")  # the built-in json, not the package's
