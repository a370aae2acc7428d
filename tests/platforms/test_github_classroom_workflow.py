"""docs/github-classroom.yml: each exercise step, run as GitHub Actions runs it (bash, $GITHUB_OUTPUT) in a
template repository made by `grader export --student`, hands the reporter a result valid against the
reporter's format."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import REFERENCE, ROOT, run_cli
from tests.platforms.schemas import problems


def test_each_step_of_the_workflow_template_gives_the_reporter_a_valid_result(tmp_path: Path) -> None:
    workflow = yaml.safe_load((ROOT / "docs" / "github-classroom.yml").read_text())
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    reporter = next(s for s in steps if s.get("uses", "").startswith("education/autograding-grading-reporter"))
    runners = reporter["with"]["runners"].split(",")
    assert set(reporter["env"]) == {f"{r.upper()}_RESULTS" for r in runners}
    repo = tmp_path / "student-repo"
    assert run_cli("export", "--student", repo, *runners).returncode == 0
    (repo / "count-queens.py").write_text((REFERENCE / "count-queens" / "accepted" / "plain_sets.py").read_text())
    (repo / "every-way.py").write_text((REFERENCE / "every-way" / "wrong_answer" / "zero_based.py").read_text())
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    statuses = {}
    for runner in runners:
        step = next(s for s in steps if s.get("id") == runner)
        output = tmp_path / f"{runner}.out"
        env["GITHUB_OUTPUT"] = str(output)
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        key, _, value = output.read_text().strip().partition("=")
        assert key == "result"
        result = json.loads(base64.b64decode(value))
        assert problems("github-classroom-results", result) == []
        statuses[runner] = result["status"]
    assert statuses == {"count-queens": "pass", "every-way": "fail"}
