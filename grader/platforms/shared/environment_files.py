"""The course's environment in a bundle: a grader-course.yaml naming requirements.txt, and that pinned list,
at the bundle's root beside exercises/, where `grader env build` and every check find them. Each platform's
set-up builds it (BUILD) before anything is graded: Gradescope's and PrairieLearn's setup.sh, the GitHub
Classroom workflow's step, the student bundle's README (and its first check says how, if it was skipped)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.environment import COURSE_FILE, environment_of_exercise
from grader.errors import UsageError

if TYPE_CHECKING:
    from grader.environment import Environment
    from grader.model import Exercise

REQUIREMENTS = "requirements.txt"
BUILD = "grader env build --exercises exercises"  # run in the bundle's root
COURSE_TEXT = f"""\
# Written by `grader export`: the packages this course's students may import, pinned in {REQUIREMENTS}.
# `{BUILD}` builds them once (each platform's set-up runs it); checks never download.
exercises: exercises
environment:
  requirements: {REQUIREMENTS}
"""


def bundle_environment(exercises: list[Exercise]) -> Environment | None:
    """The one environment of the exercises' course, or None when it declares none."""
    found = {environment_of_exercise(exercise.path) for exercise in exercises}
    found.discard(None)
    if len(found) > 1:
        raise UsageError("the exercises come from courses with different environments: export each course "
                         "on its own")
    return found.pop() if found else None


def environment_files(exercises: list[Exercise]) -> dict[str, bytes]:
    """{name at the bundle's root: content}: the course file and the pinned list; empty without one."""
    environment = bundle_environment(exercises)
    if environment is None:
        return {}
    return {COURSE_FILE: COURSE_TEXT.encode(), REQUIREMENTS: environment.requirements_text().encode()}
