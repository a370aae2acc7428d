"""examples/unittest-port: a unittest suite ported to specs. Every reference is judged by both, test by
test, and they must agree: same pass or fail on every test method (messages, exact types, ==, any order)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

COURSE = ROOT / "examples" / "unittest-port"
REFERENCES = sorted(p for p in (COURSE / "reference").glob("*/*/*.py"))
RUN_SUITE = """import json, sys, unittest
suite = unittest.defaultTestLoader.discover(sys.argv[1], pattern=sys.argv[2])
result = unittest.TestResult()
suite.run(result)
failed = sorted(test.id().rsplit(".", 1)[-1] for test, _ in result.failures + result.errors)
print(json.dumps({"ran": result.testsRun, "failed": failed}))
"""


def method_name(test_name: str) -> str:
    return "test_" + re.sub(r"\W+", "_", test_name.lower()).strip("_")


def unittest_failures(reference: Path, exercise_id: str, folder: Path) -> tuple[int, set[str]]:
    module = exercise_id.replace("-", "_")
    shutil.copy(reference, folder / f"{module}.py")
    shutil.copy(COURSE / "unittest" / f"test_{module}.py", folder)
    process = subprocess.run([sys.executable, "-c", RUN_SUITE, str(folder), f"test_{module}.py"],
                             capture_output=True, text=True, timeout=120, cwd=folder)
    report = json.loads(process.stdout)
    return report["ran"], set(report["failed"])


def test_the_ported_course_validates() -> None:
    result = run_cli("validate", "--exercises", COURSE / "exercises", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("reference", REFERENCES, ids=lambda p: "/".join(p.parts[-3:]))
def test_grader_and_unittest_agree_on_every_test(reference: Path, tmp_path: Path) -> None:
    exercise_id = reference.parent.parent.name
    ran, failed = unittest_failures(reference, exercise_id, tmp_path)
    report = run_cli("check", "--exercises", COURSE / "exercises", exercise_id, reference, "--format", "json").json()
    grader_failed = {method_name(t["name"]) for t in report["tests"] if t["verdict"] != "passed"}
    assert ran == len(report["tests"])  # one test method per grader test, none left out
    assert grader_failed == failed, report
    assert bool(failed) == (reference.parent.name != "accepted")
