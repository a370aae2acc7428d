"""One real batch over the generated 64-student class, shared by the tests that only read its outputs."""

from __future__ import annotations

import csv
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.batch.classroom import Variant, write_class, write_course
from tests.conftest import Completed, run_cli


@dataclass
class GradedClass:
    root: Path
    exercises: Path
    submissions: Path
    out: Path
    chosen: dict[str, dict[str, Variant]]
    result: Completed

    def gradebook(self) -> list[dict[str, str]]:
        return read_csv(self.out / "gradebook.csv")

    def db(self) -> sqlite3.Connection:
        return sqlite3.connect(self.out / "results.sqlite")


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


def batch(*args: object, timeout: float = 300) -> Completed:
    return run_cli("batch", *args, timeout=timeout)


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory: pytest.TempPathFactory) -> GradedClass:
    root = tmp_path_factory.mktemp("small-class")
    exercises = write_course(root)
    chosen = write_class(root / "class")
    out = root / "out"
    result = batch(root / "class", "--exercises", exercises, "--out", out, "--workers", 2)
    assert result.returncode == 0, result.stderr
    return GradedClass(root, exercises, root / "class", out, chosen, result)
