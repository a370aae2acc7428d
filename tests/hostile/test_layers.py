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
    assert _layers(full) == detected.describe().replace(f"uid {detected.uid}", f"uid {_uid(full)}")
    bare = hostile.check(GOOD, env={"GRADER_LAYERS": "none"}).json()
    assert bare["verdict"] == "passed"
    if os.geteuid() == 0:
        assert _layers(bare) == f"isolation: uid {_uid(bare)}"  # the uid is no layer root may turn off
    else:
        assert bare["isolation"].startswith("rlimits only: ")
    some = hostile.check(GOOD, env={"GRADER_LAYERS": "uid,seccomp"}).json()
    assert some["isolation"].startswith("isolation: uid ") and _layers(some).endswith(", seccomp")
    if hostile.environment is not None:  # and the course's environment after the layers
        assert full["isolation"].endswith("(matplotlib==3.11.2, numpy==2.4.6, pandas==3.1.1)")


def _layers(report: dict) -> str:
    """The isolation line without the course environment's part."""
    return report["isolation"].split("; environment ")[0]


def _uid(report: dict) -> str:
    return _layers(report).split("uid ", 1)[1].split(",")[0] if "uid " in report["isolation"] else ""


def test_doctor_says_which_threat_each_layer_covers_and_which_stays_open() -> None:
    result = run_cli("doctor", env={"GRADER_LAYERS": "seccomp", "COLUMNS": "250"})
    assert result.returncode == 0, result.stderr
    assert "Threats (README's table) on this machine" in result.stdout
    network = next(line for line in result.stdout.splitlines() if line.startswith("│ network"))
    assert "seccomp: no INET socket" in network and "netns off: an empty network namespace" in network


def test_grading_refuses_to_start_without_the_required_layers(hostile: Course) -> None:
    marker = hostile.scratch / "ran"
    hostile.exercise("")
    code = f"open({str(marker)!r}, 'w').close()\n{GOOD}"  # what loading would do, if anything ran
    env = {"GRADER_LAYERS": "seccomp", "GRADER_REQUIRE_LAYERS": "seccomp,netns"}
    result = hostile.check(code, env=env)
    report = result.json()
    assert {t["verdict"] for t in report["tests"]} == {"grader_error"}, result.stdout
    assert report["tests"][0]["feedback"] == ("refusing to grade: GRADER_REQUIRE_LAYERS asks for seccomp, netns, "
                                              "missing here: netns: turned off by GRADER_LAYERS")
    assert not marker.exists()
    doctor = run_cli("doctor", env={**env, "COLUMNS": "250"})
    assert doctor.returncode == 1 and "refusing to grade" in doctor.stdout
    assert hostile.check(GOOD, env={"GRADER_REQUIRE_LAYERS": "seccomp"}).json()["verdict"] == "passed"
