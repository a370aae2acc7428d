"""A one-exercise course (`add`, a visible and a hidden test) and `check`, which grades a hand-in through
the real command line and returns its JSON report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import Completed, run_cli

ADD_SPEC = """title: Add two numbers
kind: function
entry: add
statement: add(a, b) returns a + b.
tests:
  - name: add(1, 2)
    call: add(1, 2)
  - name: add(2, 5)
    call: add(2, 5)
    hidden: true
"""
ADD = "def add(a, b):\n    return a + b\n"


@dataclass
class Course:
    root: Path

    @property
    def exercises(self) -> Path:
        return self.root / "exercises"

    def check(self, handin: Path, *extra: object) -> dict:
        result = self.run(handin, "--format", "json", *extra)
        assert result.returncode in (0, 1), result.stderr
        return result.json()

    def run(self, handin: Path, *extra: object) -> Completed:
        return run_cli("check", "add", handin, "--exercises", self.exercises, *extra)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Course:
    root = tmp_path_factory.mktemp("handins")
    (root / "exercises").mkdir()
    (root / "exercises" / "add.yaml").write_text(ADD_SPEC)
    accepted = root / "reference" / "add" / "accepted"
    accepted.mkdir(parents=True)
    (accepted / "plain.py").write_text(ADD)
    return Course(root)


def verdicts(report: dict) -> list[str]:
    return [test["verdict"] for test in report["tests"]]


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path
