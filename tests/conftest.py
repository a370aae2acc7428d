"""Shared fixtures: run the real CLI in a subprocess, write throwaway exercises, a private cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"
REFERENCE = ROOT / "reference"
SUBMISSIONS = ROOT / "tests" / "e2e" / "submissions"


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Expected values are computed once per test session into a cache of its own."""
    cache = tmp_path_factory.mktemp("grader-cache")
    os.environ["GRADER_CACHE"] = str(cache)
    return cache


@dataclass
class Completed:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


def run_cli(*args: object, cwd: Path | None = None, timeout: float = 120, env: dict | None = None) -> Completed:
    """`python -m grader ARGS` as a real subprocess, as a user would run it."""
    process = subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        capture_output=True, text=True, timeout=timeout, cwd=cwd, env={**os.environ, **(env or {})},
    )
    return Completed(process.returncode, process.stdout, process.stderr)


@pytest.fixture
def course(tmp_path: Path):
    """A course folder of one's own: course.write('id', yaml) -> path; course.reference('id', 'file.py', code)."""

    class Course:
        root = tmp_path
        exercises = tmp_path / "exercises"

        def write(self, exercise_id: str, text: str) -> Path:
            self.exercises.mkdir(exist_ok=True)
            path = self.exercises / f"{exercise_id}.yaml"
            path.write_text(text)
            return path

        def reference(self, exercise_id: str, name: str, code: str, verdict: str = "accepted") -> Path:
            folder = tmp_path / "reference" / exercise_id / verdict
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(code)
            return folder / name

        def submission(self, name: str, code: str) -> Path:
            path = tmp_path / "submissions" / name
            path.parent.mkdir(exist_ok=True)
            path.write_text(code)
            return path

    return Course()


DATA_COURSE = ROOT / "examples" / "data-course"


@pytest.fixture(scope="session")
def data_environment():
    """The data course's environment (numpy, pandas, matplotlib), built once per session: the build itself
    is kept across sessions in the environments folder, keyed by its list and the interpreter."""
    from grader.environment import environment_of_course

    built = run_cli("env", "build", "--exercises", DATA_COURSE / "exercises", timeout=900)
    assert built.returncode == 0, built.stdout + built.stderr
    environment = environment_of_course(DATA_COURSE / "exercises")
    assert environment is not None and environment.built
    return environment
