"""A variant per student on the platforms: Gradescope's zip and PrairieLearn's image carry the generator and
the course's secret, and grade a hand-in on its submitter's own variant (Gradescope: the submitter's email;
PrairieLearn: the student the question names in data.json), the same variant `grader check --student` and
the batch compute. A classmate's right answer handed in as one's own scores below full."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from grader.spec import load_exercise
from grader.variants import variant_of
from tests.conftest import EXERCISES, run_cli

EXERCISE = "blocked-queens"


def right_answer(student: str) -> str:
    """The accepted reference, rendered for the student's variant: what a right hand-in of theirs is."""
    return variant_of(load_exercise(EXERCISES / f"{EXERCISE}.yaml"), student).exercise.reference_text


def two_students() -> tuple[str, str]:
    """Two students whose blocked squares differ (most pairs do)."""
    spec = load_exercise(EXERCISES / f"{EXERCISE}.yaml")
    first = variant_of(spec, "ann@example.edu").values
    other = next(f"student{n}@example.edu" for n in range(50) if variant_of(spec, f"student{n}@example.edu").values != first)
    return "ann@example.edu", other


@pytest.fixture(scope="module")
def gradescope_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("zip") / "autograder.zip"
    done = run_cli("export", "--exercises", EXERCISES, "--gradescope", out, EXERCISE)
    assert done.returncode == 0, done.stderr
    source = out.parent / "source"
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        archive.extractall(source)
    assert "exercises/generators.py" in names and "exercises/variants.secret" in names
    return source


def gradescope(source: Path, root: Path, code: str, email: str | None) -> dict:
    (root / "submission").mkdir(parents=True)
    (root / "source").symlink_to(source)
    (root / "submission" / f"{EXERCISE}.py").write_text(code)
    if email is not None:
        users = [{"email": email, "name": "A Student", "id": 7}]
        (root / "submission_metadata.json").write_text(json.dumps({"id": 1, "users": users, "assignment": {}}))
    done = run_cli("gradescope-run", "--root", root, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((root / "results" / "results.json").read_text())


def test_gradescope_grades_each_submitter_on_their_own_variant(gradescope_source: Path, tmp_path: Path) -> None:
    ann, ben = two_students()
    own = gradescope(gradescope_source, tmp_path / "ann", right_answer(ann), ann)
    assert own["score"] == own["extra_data"]["exercises"][EXERCISE]["max_score"] > 0
    assert own["extra_data"]["student"] == ann
    check = run_cli("check", EXERCISE, tmp_path / "ann" / "submission" / f"{EXERCISE}.py", "--student", ann,
                    "--format", "json", "--exercises", EXERCISES)
    assert own["extra_data"]["exercises"][EXERCISE]["variant"] == json.loads(check.stdout)["variant"]
    copied = gradescope(gradescope_source, tmp_path / "ben", right_answer(ann), ben)
    assert copied["score"] < own["score"]
    assert copied["extra_data"]["exercises"][EXERCISE]["variant"] != own["extra_data"]["exercises"][EXERCISE]["variant"]


def pl_job(root: Path, code: str, data: object | None) -> Path:
    (root / "student").mkdir(parents=True)
    (root / "student" / f"{EXERCISE}.py").write_text(code)
    if data is not None:
        (root / "data").mkdir()
        (root / "data" / "data.json").write_text(json.dumps(data))
    return root


def test_prairielearn_grades_the_student_the_question_names_and_refuses_to_guess(tmp_path: Path) -> None:
    image = tmp_path / "image"
    assert run_cli("export", "--exercises", EXERCISES, "--prairielearn", image, EXERCISE).returncode == 0
    assert (image / "exercises" / "variants.secret").stat().st_mode & 0o077 == 0
    ann, ben = two_students()
    for student, data, gradable, score in [
            (ann, {"params": {"grader_student": ann}}, True, 1.0),
            (ben, {"params": {"grader_student": ben}}, True, None),  # ann's answer on ben's variant
            ("none", {"params": {}}, False, None),
            ("bad", {"params": {"grader_student": ["x"]}}, False, None),
            ("broken", None, False, None)]:
        root = pl_job(tmp_path / student, right_answer(ann), data)
        done = run_cli("prairielearn-run", EXERCISE, "--root", root, "--exercises", image / "exercises", timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        results = json.loads((root / "results" / "results.json").read_text())
        assert results["gradable"] is gradable, (student, results)
        if score is not None:
            assert results["score"] == score
        elif gradable:
            assert results["score"] < 1.0
        else:
            assert "grader_student" in json.dumps(results)  # what the question must pass
