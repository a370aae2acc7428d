"""Every layer is detected, named in the report, and explained by `grader doctor`."""

from __future__ import annotations

import os

from grader.sandbox.isolation import LAYERS, detect
from tests.conftest import run_cli
from tests.hostile.host import GOOD, Course


def test_doctor_names_every_layer_and_why_one_is_off() -> None:
    result = run_cli("doctor", env={"GRADER_LAYERS": "seccomp,landlock", "COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    for name in LAYERS:
        assert name in result.stdout
    assert "turned off by GRADER_LAYERS" in result.stdout
    # Root keeps the dedicated uid whatever GRADER_LAYERS says: a submission never runs as root.
    assert ("isolation: uid " if os.geteuid() == 0 else "rlimits only") in result.stdout


def test_the_report_names_the_layers_in_force(hostile: Course) -> None:
    hostile.exercise("")
    detected = detect()
    full = hostile.check(GOOD).json()
    assert full["verdict"] == "passed"
    assert full["isolation"] == detected.describe().replace(f"uid {detected.uid}", f"uid {_uid(full)}")
    bare = hostile.check(GOOD, env={"GRADER_LAYERS": "none"}).json()
    assert bare["verdict"] == "passed"
    if os.geteuid() == 0:
        assert bare["isolation"] == f"isolation: uid {_uid(bare)}"  # the uid is no layer root may turn off
    else:
        assert bare["isolation"].startswith("rlimits only: ")
    some = hostile.check(GOOD, env={"GRADER_LAYERS": "uid,seccomp"}).json()
    assert some["isolation"].startswith("isolation: uid ") and some["isolation"].endswith(", seccomp")


def _uid(report: dict) -> str:
    return report["isolation"].split("uid ", 1)[1].split(",")[0] if "uid " in report["isolation"] else ""
