"""`grader export --github-classroom DIR`: an assignment's template repository. The student bundle (visible
tests only: the workflow runs in the student's own repository, where nothing is secret), the grader's wheel
in .github/grader/ (installed from there: the package index serves only its dependencies), and
.github/workflows/classroom.yml, one step per exercise. Each step always hands the reporter a result, so an
exercise's points never depend on another step; the reporter (classroom-resources/autograding-grading-reporter)
adds up each test's score and prints each failed test's feedback."""

from __future__ import annotations

import json
from pathlib import Path

from grader.batch.discover import extension
from grader.model import Exercise
from grader.platforms.shared.environment_files import BUILD, bundle_environment
from grader.platforms.shared.folder import start_folder, write_wheel
from grader.platforms.student.bundle import Bundle, export_student_bundle
from grader.records import record

WORKFLOW = ".github/workflows/classroom.yml"
WHEELS = ".github/grader"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
PYTHON = "3.12"


@record
class ClassroomBundle:
    root: Path
    student: Bundle
    wheel: str
    runners: list[str]


def write_classroom_bundle(exercises: list[Exercise], root: Path, *, force: bool = False) -> ClassroomBundle:
    start_folder(root, force)
    student = export_student_bundle(exercises, root, force=True)
    wheel = write_wheel(root / WHEELS)
    graded = [e for e in exercises if e.id not in student.skipped]
    (root / WORKFLOW).parent.mkdir(parents=True, exist_ok=True)
    (root / WORKFLOW).write_text(workflow(graded, wheel, bundle_environment(exercises) is not None), encoding="utf-8")
    return ClassroomBundle(root, student, wheel, [e.id for e in graded])


def _step(exercise: Exercise) -> str:
    visible = sum(t.points for t in exercise.tests if not t.hidden)
    # A step that cannot grade (no such file, a broken spec) still reports: the exercise's points, none earned.
    fallback = {"version": 1, "status": "fail", "max_score": visible, "tests": [
        {"name": exercise.id, "status": "fail", "score": 0, "message": "", "test_code": "", "filename": "",
         "line_no": 0, "duration": 0}]}
    make_fallback = ("import json, sys; r = json.loads(sys.argv[1]); "
                     "r['tests'][0]['message'] = r['tests'][0]['test_code'] = open(sys.argv[2]).read().strip(); "
                     "print(json.dumps(r))")
    file = f"{exercise.id}.{extension(exercise)}"
    return f"""      - name: {exercise.id}
        id: {exercise.id}
        run: |
          status=0
          grader check {exercise.id} {file} --exercises exercises --format github-classroom \\
              > "$RUNNER_TEMP/{exercise.id}.json" 2> "$RUNNER_TEMP/{exercise.id}.err" || status=$?
          cat "$RUNNER_TEMP/{exercise.id}.err" >&2
          if [ "$status" -gt 1 ]; then
            python -c {_quote(make_fallback)} {_quote(json.dumps(fallback))} "$RUNNER_TEMP/{exercise.id}.err" \\
                > "$RUNNER_TEMP/{exercise.id}.json"
          fi
          echo "result=$(base64 -w 0 < "$RUNNER_TEMP/{exercise.id}.json")" >> "$GITHUB_OUTPUT"
"""


# The course's environment (requirements.txt at the root, named by grader-course.yaml), built before any
# check, and kept between runs in the runner's cache by the list's content: a push does not reinstall it.
ENVIRONMENT_STEPS = f"""\
      - name: Keep the course's environment
        uses: actions/cache@v4
        with:
          path: ~/.cache/grader-environments
          key: grader-environment-${{{{ runner.os }}}}-py{PYTHON}-${{{{ hashFiles('requirements.txt') }}}}
      - name: Build the course's environment
        run: {BUILD}
"""


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def workflow(exercises: list[Exercise], wheel: str, environment: bool = False) -> str:
    steps = "".join(_step(e) for e in exercises)
    build = ENVIRONMENT_STEPS if environment else ""
    # With an environment the grader compares arrays and frames itself: its `data` extra, at the course's pins.
    install = f'"{WHEELS}/{wheel}[data]" -c requirements.txt' if environment else f"{WHEELS}/{wheel}"
    env = "".join(f'          {e.id.upper()}_RESULTS: "${{{{ steps.{e.id}.outputs.result }}}}"\n' for e in exercises)
    return f"""# Written by `grader export --github-classroom`: GitHub Classroom autograding for this template repository.
# Each exercise's step always hands the reporter a result (a missing file scores that exercise 0), and the
# reporter adds up the tests' points and prints each failed test's feedback.
name: Autograding Tests
on:
  - push
  - workflow_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Checkout code
        uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "{PYTHON}"
      - name: Install the grader
        run: python -m pip install --disable-pip-version-check {install}
{build}      - name: Sandbox layers
        run: grader doctor
        continue-on-error: true
{steps}      - name: Autograding Reporter
        uses: {REPORTER}
        env:
{env}        with:
          runners: {",".join(e.id for e in exercises)}
"""
