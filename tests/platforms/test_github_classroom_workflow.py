"""`grader export --github-classroom`: the template's workflow, each exercise step run as GitHub Actions runs
it (bash -e, $GITHUB_OUTPUT, $RUNNER_TEMP), hands the reporter a result valid against the reporter's format,
also for an exercise whose file is missing, and installs the wheel that the template carries."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from grader.course import Course
from tests.conftest import EXERCISES, REFERENCE, run_cli
from tests.platforms.schemas import problems


def test_each_step_of_the_exported_workflow_gives_the_reporter_a_valid_result(tmp_path: Path) -> None:
    repo = tmp_path / "template"
    assert run_cli("export", "--github-classroom", repo, "count-queens", "every-way", "any-queens").returncode == 0
    workflow = yaml.safe_load((repo / ".github" / "workflows" / "classroom.yml").read_text())
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    reporter = next(s for s in steps if s.get("uses", "").startswith("classroom-resources/autograding-grading-reporter@"))
    runners = reporter["with"]["runners"].split(",")
    assert set(reporter["env"]) == {f"{r.upper()}_RESULTS" for r in runners}
    install = next(s for s in steps if s.get("name") == "Install the grader")["run"]
    wheel = install.split()[-1]
    assert (repo / wheel).is_file() and "yaml-grader" not in install  # the bundled wheel, not the index
    assert (repo / "exercises" / "any_queens_check.py").is_file()  # the checker file its visible tests name
    (repo / "count-queens.py").write_text((REFERENCE / "count-queens" / "accepted" / "plain_sets.py").read_text())
    (repo / "every-way.py").write_text((REFERENCE / "every-way" / "wrong_answer" / "zero_based.py").read_text())
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "RUNNER_TEMP": str(tmp_path)}
    results = {}
    for runner in runners:  # any-queens.py is not handed in
        step = next(s for s in steps if s.get("id") == runner)
        output = tmp_path / f"{runner}.out"
        env["GITHUB_OUTPUT"] = str(output)
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        key, _, value = output.read_text().strip().partition("=")
        assert key == "result"
        results[runner] = json.loads(base64.b64decode(value))
        assert problems("github-classroom-results", results[runner]) == []
    assert {r: results[r]["status"] for r in runners} == {"count-queens": "pass", "every-way": "fail",
                                                          "any-queens": "fail"}
    missing = results["any-queens"]
    visible = sum(t.points for t in Course.at(EXERCISES).load("any-queens").tests if not t.hidden)  # the bundle's
    assert missing["max_score"] == visible and [t["score"] for t in missing["tests"]] == [0]
    assert "any-queens.py" in missing["tests"][0]["test_code"]  # what the reporter prints: why it scored 0
    failed = [t for t in results["every-way"]["tests"] if t["status"] == "fail"]
    assert failed and all("expected" in t["test_code"] for t in failed)  # feedback, not just ❌ name
