"""`grader gradescope-run`: what run_autograder does for one submission. Every exercise of the bundle is
graded from the files in ROOT/submission/ (matched as a batch matches a student's folder), the student is
read from ROOT/submission_metadata.json, and ROOT/results/results.json is written, also when grading fails.
An exercise with params is graded on the submitter's own variant: the student is their Gradescope email."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from datetime import datetime
from pathlib import Path

from grader.version import grader_version
from grader.batch.discover import Found, NameRule, discover, extension
from grader.workers.job import uniform_report
from grader.course import Course
from grader.grading import GradingRequest, Pace, grade
from grader.model import Exercise, Verdict
from grader.platforms.gradescope.results import Graded, results
from grader.records import record
from grader.variants import for_student

ROOT_VARIABLE = "GRADER_AUTOGRADER_ROOT"
DEFAULT_ROOT = Path("/autograder")
STUDENT = "submission"  # the one folder of the class the submission is read as


@record
class AutograderRoot:
    """Gradescope's layout (docs/specs.md): where the bundle, the submission and the results live."""

    root: Path

    @classmethod
    def from_environment(cls, given: str | None = None) -> AutograderRoot:
        return cls(Path(given or os.environ.get(ROOT_VARIABLE) or DEFAULT_ROOT))

    @property
    def exercises(self) -> Path:
        return self.root / "source" / "exercises"

    @property
    def submission(self) -> Path:
        return self.root / "submission"

    @property
    def metadata(self) -> Path:
        return self.root / "submission_metadata.json"

    @property
    def results(self) -> Path:
        return self.root / "results" / "results.json"


def grade_submission(where: AutograderRoot, course: Course, rule: NameRule) -> dict[str, object]:
    metadata = read_metadata(where.metadata)
    student = submitter(metadata)
    exercises = [for_student(exercise, student) for exercise in course.load_all()]
    graded = []
    # The submission folder is read as the one student of a class, so a batch's matching rules apply as
    # they are. A copy, links kept as links: a batch refuses a student folder that is a link.
    with tempfile.TemporaryDirectory(prefix="grader-gradescope-") as class_root:
        shutil.copytree(where.submission, Path(class_root) / STUDENT, symlinks=True)
        # Always one folder: files the student uploads (a submission_metadata.yml, .git/) never make it
        # read as another platform's layout, whose metadata could name files outside the submission.
        found = discover(Path(class_root), exercises, rule, layout="folders")
        private = course.private_paths(where.root.resolve())  # the bundle, the results, the metadata
        for exercise in exercises:
            graded.append(_graded(exercise, found.found[(STUDENT, exercise.id)], Path(class_root) / STUDENT,
                                  private))
        stray = [name.removeprefix(f"{STUDENT}/") for name in found.stray]
    note = f"Not graded (no exercise has this name): {', '.join(stray)}" if stray else ""
    about = {"grader_version": grader_version(), "submission": metadata}
    if any(exercise.params is not None for exercise in exercises):
        about["student"] = student or ""  # whose variants were graded
    return results(graded, about, note=note)


def submitter(metadata: dict[str, object]) -> str | None:
    """The student whose variant a submission is graded on: the submitter's email as Gradescope has it (of
    a group, the first by email: the same whichever member hands in); None without metadata (a local run)."""
    users = metadata.get("users")
    emails = sorted(str(user["email"]).strip() for user in users if isinstance(user, dict)
                    and isinstance(user.get("email"), str) and user["email"].strip()) if isinstance(users, list) else []
    return emails[0] if emails else None


def _graded(exercise: Exercise, found: Found, folder: Path, private: tuple[Path, ...]) -> Graded:
    path, refused = found.path, found.refused
    if path is None:
        name = f"{exercise.id}.{extension(exercise)}"
        return Graded(exercise.id, None, uniform_report(exercise, "-", Verdict.MISSING,
                                                        f"Hand in a file named {name}."))
    relative = path.relative_to(folder).as_posix()
    if refused:
        return Graded(exercise.id, relative, uniform_report(exercise, relative, Verdict.RUNTIME_ERROR, refused))
    started = time.monotonic()
    # A score: every test runs, as in a batch.
    report = grade(exercise, path, GradingRequest(Pace.EVERY_TEST, private_paths=private, label=relative))
    return Graded(exercise.id, relative, report, time.monotonic() - started)


def read_metadata(path: Path) -> dict[str, object]:
    """Who handed in and when (docs/submission_metadata.md), for the instructor's extra_data; empty when
    Gradescope wrote none (a local test)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    assignment = data.get("assignment") if isinstance(data.get("assignment"), dict) else {}
    users = [{key: user.get(key) for key in ("id", "name", "email")}
             for user in _list(data.get("users")) if isinstance(user, dict)]
    kept: dict[str, object] = {"id": data.get("id"), "created_at": data.get("created_at"), "users": users,
                               "assignment": assignment.get("title"), "due_date": assignment.get("due_date")}
    late = _after(data.get("created_at"), assignment.get("late_due_date") or assignment.get("due_date"))
    if late is not None:
        kept["late"] = late
    return kept


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _after(when: object, deadline: object) -> bool | None:
    try:
        return datetime.fromisoformat(str(when)) > datetime.fromisoformat(str(deadline))
    except (ValueError, TypeError):  # no date, or one with a time zone beside one without
        return None


def failure_results(error: BaseException) -> dict[str, object]:
    """A results.json for a run that could not grade (best_practices.md: always write one): the student is
    told it is not their doing; the instructor sees the error in extra_data and in stdout."""
    return {
        "score": 0,
        "output": "The autograder could not grade this submission. This is not a problem with your code: your "
                  "instructor can see the error. Please let them know.",
        "output_format": "text",
        "stdout_visibility": "hidden",
        "tests": [],
        "extra_data": {"grader_error": f"{type(error).__name__}: {error}"},
    }
