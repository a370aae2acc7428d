"""What a student uploads to Gradescope never names files outside their own submission: `grader gradescope-run`
through the CLI, in a Gradescope root of its own (no bundle install: the command is what run_autograder calls)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from tests.conftest import EXERCISES, REFERENCE, run_cli


def autograder_root(tmp_path: Path) -> Path:
    """/autograder as the bundle lays it out, with one reference per exercise named as a hand-in is."""
    root = tmp_path / "autograder"
    (root / "source" / "exercises").mkdir(parents=True)
    shutil.copy(EXERCISES / "count-queens.yaml", root / "source" / "exercises")
    accepted = root / "source" / "reference" / "count-queens" / "accepted"
    accepted.mkdir(parents=True)
    shutil.copy(REFERENCE / "count-queens" / "accepted" / "plain_sets.py", accepted / "count-queens.py")
    (root / "submission").mkdir()
    return root


def run(root: Path) -> dict:
    result = run_cli("gradescope-run", "--root", root, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads((root / "results" / "results.json").read_text())


def test_metadata_pointing_at_the_reference_is_not_graded_as_the_submission(tmp_path: Path) -> None:
    root = autograder_root(tmp_path)
    reference = root / "source" / "reference" / "count-queens" / "accepted"
    metadata = {str(reference): {":submitters": [{":name": "Mallory"}]},
                "../../../../../../../../" + str(reference).lstrip("/"): {":submitters": [{":name": "Eve"}]}}
    (root / "submission" / "submission_metadata.yml").write_text(yaml.safe_dump(metadata))
    results = run(root)
    assert results["score"] == 0
    assert results["extra_data"]["exercises"]["count-queens"]["verdict"] == "missing"


def test_metadata_pointing_at_the_autograder_lists_none_of_its_files(tmp_path: Path) -> None:
    root = autograder_root(tmp_path)
    for number in range(50):
        (root / "source" / "exercises" / f"private-{number}.txt").write_text("secret\n")
    metadata = {str(root / "source" / "exercises"): {":submitters": [{":name": "Mallory"}]}}
    (root / "submission" / "submission_metadata.yml").write_text(yaml.safe_dump(metadata))
    text = json.dumps(run(root))
    assert "private-" not in text and "count-queens.yaml" not in text


def test_a_link_out_of_the_submission_is_not_read(tmp_path: Path) -> None:
    root = autograder_root(tmp_path)
    (root / "submission" / "count-queens.py").symlink_to(
        root / "source" / "reference" / "count-queens" / "accepted" / "count-queens.py")
    results = run(root)
    assert results["score"] == 0
    assert results["extra_data"]["exercises"]["count-queens"]["verdict"] == "runtime_error"


def test_an_export_entry_outside_the_download_is_refused_for_that_student(tmp_path: Path) -> None:
    from grader.batch.discover import NameRule, discover
    from grader.course import Course

    secret = tmp_path / "elsewhere"
    secret.mkdir()
    (secret / "count-queens.py").write_text("x = 1\n")
    export = tmp_path / "export"
    (export / "submission_1").mkdir(parents=True)
    (export / "submission_1" / "count-queens.py").write_text("x = 2\n")
    (export / "submission_metadata.yml").write_text(yaml.safe_dump({
        "submission_1": {":submitters": [{":name": "Ada"}]},
        "../elsewhere": {":submitters": [{":name": "Eve"}]},
        str(secret): {":submitters": [{":name": "Mallory"}]}}))
    found = discover(export, Course.at(EXERCISES).load_all(), NameRule())
    assert found.found[("Ada", "count-queens")].path == export / "submission_1" / "count-queens.py"
    for student in ("Eve", "Mallory"):
        refused = found.found[(student, "count-queens")]
        assert refused.path is None and "outside the download" in refused.refused


def test_an_export_with_two_students_of_one_name_grades_both_into_outputs_of_their_own(tmp_path: Path) -> None:
    import hashlib

    twin = "Jos_-" + hashlib.sha256("Jos\u00fb".encode()).hexdigest()[:8]  # Josû, once made file-safe
    export = tmp_path / "assignment_1_export"
    people = {"submission_1": "Ada", "submission_2": "Ada", "submission_3": "Jos\u00fb", "submission_4": twin}
    for folder, name in people.items():
        (export / folder).mkdir(parents=True)
        code = (REFERENCE / "count-queens" / "accepted" / "plain_sets.py").read_text() if folder != "submission_2" \
            else "def count_queens(n):\n    return 0\n"
        (export / folder / "count-queens.py").write_text(code)
    (export / "submission_metadata.yml").write_text(yaml.safe_dump(
        {folder: {":submitters": [{":name": name}]} for folder, name in people.items()}, allow_unicode=True))
    out = tmp_path / "out"
    result = run_cli("batch", export, "--exercises", EXERCISES, "--only", "count-queens", "--out", out,
                     "--outputs", "json,csv,html,gradescope", "--workers", 2, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    students = {s["student"]: s["total"] for s in json.loads((out / "grades.json").read_text())["students"]}
    assert len(students) == 4 and students["Ada (2)"] < students["Ada"] == 6, students
    assert len(list((out / "html" / "students").iterdir())) == 4
    assert len(list((out / "gradescope").iterdir())) == 4
