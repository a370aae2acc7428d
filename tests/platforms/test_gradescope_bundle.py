"""`grader export --gradescope` and the bundle on Gradescope, end to end in a simulated /autograder: the zip
is unpacked into source/, setup.sh installs the grader from the wheel inside it into a venv (the package
index serves only its dependencies; apt is skipped), run_autograder is copied to the root and run there, and
results.json is checked against the schema written from Gradescope's specification."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import EXERCISES, REFERENCE, run_cli
from tests.platforms.schemas import problems

EXERCISE_IDS = ("count-queens", "every-way", "predict-attacked")
METADATA = {
    "id": 123456, "created_at": "2025-03-02T10:00:00.000000-07:00", "submission_method": "upload",
    "assignment": {"id": 25828, "course_id": 1234, "title": "Queens", "due_date": "2025-03-01T23:00:00.000000-07:00",
                   "late_due_date": None, "release_date": "2025-02-01T00:00:00.000000-07:00",
                   "group_size": None, "group_submission": False, "total_points": "20.0"},
    "users": [{"email": "ada@example.com", "id": 1234, "name": "Ada Lovelace"}],
    "previous_submissions": [],
}


# ---------------------------------------------------------------- the export command
def test_export_needs_exactly_one_of_student_and_gradescope(tmp_path: Path) -> None:
    neither = run_cli("export", "count-queens")
    both = run_cli("export", "--student", tmp_path / "s", "--gradescope", tmp_path / "g.zip")
    match_alone = run_cli("export", "--student", tmp_path / "s", "--match", "hw_{id}.{ext}")
    for result in (neither, both, match_alone):
        assert result.returncode == 2
        assert result.stderr.startswith("usage: grader export")
    assert "one of --student DIR, --gradescope ZIP, --prairielearn DIR or --github-classroom DIR" in neither.stderr


def test_export_refuses_to_overwrite_a_zip_without_force(tmp_path: Path) -> None:
    out = tmp_path / "autograder.zip"
    out.write_bytes(b"keep me")
    refused = run_cli("export", "--gradescope", out, "count-queens")
    assert refused.returncode == 2 and "--force" in refused.stderr and out.read_bytes() == b"keep me"
    assert run_cli("export", "--gradescope", out, "count-queens", "--force").returncode == 0


def test_the_zip_has_setup_and_run_autograder_at_its_root_with_exercises_references_and_a_wheel(tmp_path: Path) -> None:
    out = tmp_path / "autograder.zip"
    result = run_cli("export", "--gradescope", out, *EXERCISE_IDS, "--match", "hw3_{id}.{ext}")
    assert result.returncode == 0, result.stderr
    with zipfile.ZipFile(out) as archive:
        names = set(archive.namelist())
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        run_autograder = archive.read("run_autograder").decode()
    assert {"setup.sh", "run_autograder"} <= names
    assert all(modes[name] & stat.S_IXUSR for name in ("setup.sh", "run_autograder"))
    assert {f"exercises/{i}.yaml" for i in EXERCISE_IDS} <= names
    assert {n.split("/")[0] for n in names} == {"setup.sh", "run_autograder", "exercises", "reference", "dist"}
    assert all(f"reference/{i}/{p.relative_to(REFERENCE / i).as_posix()}" in names
               for i in EXERCISE_IDS for p in (REFERENCE / i).rglob("*.py"))
    assert [n for n in names if n.startswith("dist/")] == ["dist/yaml_grader-0.1.0-py3-none-any.whl"]
    assert not [n for n in names if "__pycache__" in n or n.startswith("/") or ".." in n]
    assert "grader gradescope-run --match 'hw3_{id}.{ext}'" in run_autograder


# ---------------------------------------------------------------- on Gradescope, simulated
@dataclass
class Installed:
    source: Path  # an unpacked bundle, set up
    env: dict[str, str]
    setup_log: str


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The image build, once: unpack the zip as Gradescope does and run its setup.sh, apt skipped."""
    base = tmp_path_factory.mktemp("gradescope")
    zip_path = base / "autograder.zip"
    assert run_cli("export", "--gradescope", zip_path, *EXERCISE_IDS).returncode == 0
    source = base / "autograder" / "source"
    source.mkdir(parents=True)
    subprocess.run(["unzip", "-q", zip_path, "-d", source], check=True)
    tools = base / "tools"  # a python3 on PATH that is this interpreter (not a slow pyenv shim)
    tools.mkdir()
    (tools / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
    env = {**os.environ, "GRADER_SKIP_APT": "1", "GRADER_SOURCE": str(source), "GRADER_VENV": str(base / "venv"),
           "GRADER_BIN": str(base / "bin"), "PATH": f"{tools}:{os.environ['PATH']}"}
    env.pop("VIRTUAL_ENV", None)
    setup = subprocess.run(["bash", source / "setup.sh"], capture_output=True, text=True, env=env, timeout=600)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    return Installed(source, env, setup.stdout + setup.stderr)


def autograde(installed: Installed, root: Path, files: dict[str, str], metadata: dict | None = METADATA,
              source: Path | None = None) -> tuple[subprocess.CompletedProcess[str], dict]:
    """One submission: Gradescope's root with the bundle, the student's files and the metadata, then
    run_autograder, copied to the root and run from there."""
    shutil.copytree(source or installed.source, root / "source")
    (root / "submission").mkdir()
    for name, text in files.items():
        (root / "submission" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "submission" / name).write_text(text)
    if metadata is not None:
        (root / "submission_metadata.json").write_text(json.dumps(metadata))
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    env = {**installed.env, "GRADER_AUTOGRADER_ROOT": str(root)}
    run = subprocess.run([root / "run_autograder"], cwd=root, capture_output=True, text=True, env=env, timeout=600)
    return run, json.loads((root / "results" / "results.json").read_text())


def test_setup_installs_the_grader_from_the_bundle_and_validates_the_exercises(installed: Installed) -> None:
    grader = Path(installed.env["GRADER_BIN"]) / "grader"
    assert grader.exists()
    assert Path(installed.env["GRADER_VENV"], "bin", "grader").samefile(grader)
    assert "every exercise is valid (3 of 3" in installed.setup_log
    assert re.search(r"setup.sh: the grader runs on 3\.\d+\.\d+ ", installed.setup_log)  # which Python, said
    assert installed.source.stat().st_mode & 0o007 == 0  # readable by root alone, as Gradescope advises


def test_a_submission_is_graded_into_a_results_json_valid_against_gradescopes_spec(installed: Installed, tmp_path: Path) -> None:
    run, results = autograde(installed, tmp_path / "autograder", {
        "count-queens.py": (REFERENCE / "count-queens" / "accepted" / "plain_sets.py").read_text(),
        "Every_Way.py": (REFERENCE / "every-way" / "wrong_answer" / "zero_based.py").read_text(),
        "notes.md": "my notes\n",
    })
    assert run.returncode == 0, run.stdout + run.stderr
    assert problems("gradescope-results", results) == []
    exercises = results["extra_data"]["exercises"]
    assert exercises["count-queens"] == {"file": "count-queens.py", "verdict": "passed", "score": 6.0, "max_score": 6.0}
    assert exercises["every-way"]["file"] == "Every_Way.py"  # matched loosely, as a batch matches
    assert exercises["every-way"]["verdict"] == "wrong_answer"
    assert exercises["predict-attacked"]["verdict"] == "missing"
    assert results["score"] == sum(t["score"] for t in results["tests"]) == sum(e["score"] for e in exercises.values())
    assert results["extra_data"]["submission"]["users"] == [{"id": 1234, "name": "Ada Lovelace", "email": "ada@example.com"}]
    assert results["extra_data"]["submission"]["late"] is True
    assert "Not graded (no exercise has this name): notes.md" in results["output"]
    assert results["extra_data"]["isolation"] and all(  # the layers that were on, for the instructor
        line.startswith(("isolation: ", "rlimits only")) for line in results["extra_data"]["isolation"])


def test_the_student_sees_no_total_and_no_hidden_answer(installed: Installed, tmp_path: Path) -> None:
    _, results = autograde(installed, tmp_path / "autograder", {
        "every-way.py": (REFERENCE / "every-way" / "wrong_answer" / "zero_based.py").read_text()})
    output = results["output"]
    assert not re.search(r"\d\s*/\s*\d", output) and "Score" not in output, output
    assert "every-way (every-way.py): 1 of 2 visible tests passed; 6 hidden tests" in output
    hidden = [t for t in results["tests"] if t["visibility"] != "visible"]
    assert hidden and {t["visibility"] for t in hidden} == {"after_published"}
    assert all("expected:" not in t["output"] and "actual:" not in t["output"] for t in hidden)
    assert any("expected:" in t["output"] for t in results["tests"] if t["visibility"] == "visible")


def test_an_empty_submission_scores_nothing_and_says_what_to_hand_in(installed: Installed, tmp_path: Path) -> None:
    run, results = autograde(installed, tmp_path / "autograder", {}, metadata=None)
    assert run.returncode == 0, run.stderr
    assert problems("gradescope-results", results) == []
    assert results["score"] == 0 and all(t["status"] == "failed" for t in results["tests"])
    assert "count-queens: not handed in. Hand in a file named count-queens.py." in results["output"]
    assert "predict-attacked: not handed in. Hand in a file named predict-attacked.txt." in results["output"]
    assert results["extra_data"]["submission"] == {}


def test_a_file_that_does_not_parse_gets_a_verdict_not_a_crash(installed: Installed, tmp_path: Path) -> None:
    run, results = autograde(installed, tmp_path / "autograder", {"count-queens.py": "def count_queens(n:\n"})
    assert run.returncode == 0, run.stderr
    assert results["extra_data"]["exercises"]["count-queens"]["verdict"] == "syntax_error"
    assert problems("gradescope-results", results) == []


def test_a_broken_bundle_still_writes_a_results_json_that_blames_no_student(installed: Installed, tmp_path: Path) -> None:
    broken = tmp_path / "broken-source"
    shutil.copytree(installed.source, broken)
    (broken / "exercises" / "count-queens.yaml").write_text("title: [unclosed\n")
    run, results = autograde(installed, tmp_path / "autograder", {"count-queens.py": "x = 1\n"}, source=broken)
    assert run.returncode != 0
    assert problems("gradescope-results", results) == []
    assert "not a problem with your code" in results["output"]
    assert "count-queens.yaml" in results["extra_data"]["grader_error"]
