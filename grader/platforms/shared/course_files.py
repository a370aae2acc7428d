"""The files of a course that grading its exercises needs, found from the loaded specs: each spec, the course's
own code its tests name (a checker file, generators.py, beside the specs), its calibrated limits and the
exercise's references.
Every platform bundle carries exactly these, under the names the course has them."""

from __future__ import annotations

from pathlib import Path

from grader.errors import UsageError
from grader.forms.given import Generated
from grader.model import Exercise, Test

SKIPPED = {"__pycache__", ".pytest_cache"}


def course_files(exercises: list[Exercise]) -> dict[str, Path]:
    """{name in the bundle: the file here}: exercises/<spec>.yaml and what it names, reference/<id>/...
    A file a spec names that is not there refuses the bundle: it would fail on the platform instead."""
    files: dict[str, Path] = {}
    for exercise in exercises:
        files[f"exercises/{exercise.path.name}"] = exercise.path
        calibration = exercise.path.parent / ".calibration" / f"{exercise.id}.json"  # its limits: the course's
        if calibration.is_file():
            files[f"exercises/.calibration/{calibration.name}"] = calibration
        for named in sorted(named_files(exercise)):
            if not named.is_file():
                raise UsageError(f"{exercise.path}: names {named.name}, which is not in {named.parent}: "
                                 f"the bundle would fail on the platform")
            files[f"exercises/{named.name}"] = named
        reference = exercise.reference_dir
        for path in sorted(reference.rglob("*")) if reference.is_dir() else ():
            if path.is_file() and not SKIPPED & set(path.relative_to(reference).parts):
                files[f"reference/{exercise.id}/{path.relative_to(reference).as_posix()}"] = path
    return files


def named_files(exercise: Exercise) -> set[Path]:
    """The course's own code the exercise's tests run: checker files and generators (a test's, or the one
    drawing its variants), beside the spec."""
    params = {exercise.params.source} if exercise.params is not None else set()
    return params | {path for test in exercise.tests for path in test_files(test)}


def course_secret_file(exercises: list[Exercise]) -> dict[str, bytes]:
    """{"exercises/variants.secret": the course's secret} when an exercise has params: the platform computes
    each student's variant as every entry point does (grader.variants). Only a grading bundle carries it,
    beside the references it already holds; a student bundle never does."""
    with_params = [exercise for exercise in exercises if exercise.params is not None]
    if not with_params:
        return {}
    from grader.variants.seed import SECRET_FILE, SecretMissing, course_secret

    try:
        secret = course_secret(with_params[0].path.parent)
    except SecretMissing as error:
        raise UsageError(f"{with_params[0].path}: {error}") from None
    return {f"exercises/{SECRET_FILE}": secret + b"\n"}


def test_files(test: Test) -> list[Path]:
    files = [Path(str(dict(test.checker.args)["file"]))] if test.checker.name == "custom" else []
    return files + [value.source for _, value in test.given if isinstance(value, Generated)]
