"""`grader prairielearn-run ID`: a PrairieLearn external grading job (PrairieLearn docs/externalGrading.md).
PrairieLearn runs the question's entrypoint without a shell and reads /grade/results/results.json only when it
exits 0, so this finds the student's file in /grade/student/ (matched as a batch matches a student's folder),
grades it, writes results.json itself, and exits 0 also when grading fails (the job is then not gradable).
An exercise with params is graded on the variant of the student the question names in /grade/data/data.json
(`params.grader_student`, which the question's server.py sets): PrairieLearn's own variant seed is not ours."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from grader.batch.discover import NameRule, discover, extension
from grader.workers.job import uniform_report
from grader.course import Course
from grader.grading import GradingRequest, Pace, grade
from grader.model import Verdict
from grader.platforms.prairielearn.output import prairielearn_results
from grader.records import record
from grader.variants import for_student

DEFAULT_ROOT = Path("/grade")
STUDENT = "student"


@record
class JobRoot:
    """PrairieLearn's layout: /grade/{serverFilesCourse,tests,student,data} in, /grade/results out."""

    root: Path

    @property
    def student(self) -> Path:
        return self.root / "student"

    @property
    def results(self) -> Path:
        return self.root / "results" / "results.json"

    @property
    def data(self) -> Path:
        return self.root / "data" / "data.json"


class NoStudent(Exception):
    """An exercise with a variant per student, and a job that does not say whose."""


def grade_job(where: JobRoot, course: Course, exercise_id: str, rule: NameRule) -> dict[str, object]:
    exercise = course.load(exercise_id)
    if exercise.params is not None:
        student = job_student(where.data)
        if student is None:
            raise NoStudent(f"{exercise_id} has a variant per student: the question's server.py must set "
                            "data['params']['grader_student'] to the student's id (docs/variants.md)")
        exercise = for_student(exercise, student)
    with tempfile.TemporaryDirectory(prefix="grader-prairielearn-") as class_root:
        # A copy, links kept as links, read as the one student of a class: a batch's matching rules apply.
        shutil.copytree(where.student, Path(class_root) / STUDENT, symlinks=True)
        found = discover(Path(class_root), [exercise], rule).found[(STUDENT, exercise.id)]
        folder = Path(class_root) / STUDENT
        if found.path is None:
            report = uniform_report(exercise, "-", Verdict.MISSING,
                                    f"Hand in a file named {exercise.id}.{extension(exercise)}.")
        elif found.refused:
            label = found.path.relative_to(folder).as_posix()
            report = uniform_report(exercise, label, Verdict.RUNTIME_ERROR, found.refused)
        else:
            label = found.path.relative_to(folder).as_posix()
            report = grade(exercise, found.path, GradingRequest(
                Pace.EVERY_TEST, private_paths=course.private_paths(where.root.resolve()), label=label))
    return prairielearn_results(report)


def job_student(data_json: Path) -> str | None:
    """`params.grader_student` of the job's data.json: text of 1 to 200 characters, else None."""
    try:
        data = json.loads(data_json.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    params = data.get("params") if isinstance(data, dict) else None
    student = params.get("grader_student") if isinstance(params, dict) else None
    return student if isinstance(student, str) and 0 < len(student) <= 200 and "\0" not in student else None


def failure_results(error: BaseException) -> dict[str, object]:
    """Not gradable (the student keeps the attempt): the job could not be graded, which is not their doing."""
    return {"gradable": False, "format_errors": [f"the grader could not grade this: {type(error).__name__}: {error}"],
            "message": "The autograder could not grade this submission. This is not a problem with your code: "
                       "your instructor can see the error."}
