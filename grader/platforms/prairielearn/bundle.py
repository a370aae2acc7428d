"""`grader export --prairielearn DIR`: the external grader's image, as a Docker build context. The image holds
the grader (installed from the bundled wheel by setup.sh, Gradescope's too: the package index serves only its
dependencies, and only at build time, since PrairieLearn's jobs run offline), the course and its environment
(the pinned packages its students import, built by the same setup.sh), and the expected
values `grader validate` computed while it was built: every job starts from the image with nothing else.
README.md says what goes into each question's info.json."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from grader.batch.discover import extension
from grader.model import Exercise
from grader.platforms.shared.environment_files import BUILD, bundle_environment
from grader.platforms.shared.folder import copy_course, start_folder, write_wheel
from grader.records import record

HOME = "/grader"  # where the image keeps the course and the wheel
TIMEOUT = 60  # seconds: PrairieLearn's default (30) is short for a job that also starts the sandbox


@record
class PrairieLearnBundle:
    root: Path
    exercises: list[str]
    wheel: str


def write_prairielearn_bundle(exercises: list[Exercise], root: Path, *, force: bool = False) -> PrairieLearnBundle:
    start_folder(root, force)
    copy_course(exercises, root)
    wheel = write_wheel(root / "dist")
    setup = root / "setup.sh"
    setup.write_bytes((files("grader.platforms.shared") / "setup.sh").read_bytes())
    setup.chmod(0o755)
    entrypoint = root / ENTRYPOINT
    entrypoint.write_text(ENTRYPOINT_SCRIPT, encoding="utf-8")
    entrypoint.chmod(0o755)
    (root / "Dockerfile").write_text(DOCKERFILE, encoding="utf-8")
    (root / "README.md").write_text(_readme(exercises), encoding="utf-8")
    return PrairieLearnBundle(root, [e.id for e in exercises], wheel)


def grading_options(exercise_id: str, image: str = "YOUR-ACCOUNT/grader") -> dict[str, object]:
    """A question's externalGradingOptions: the entrypoint is executed without a shell, as written."""
    return {"enabled": True, "image": image, "entrypoint": f"{HOME}/{ENTRYPOINT} {exercise_id}",
            "timeout": TIMEOUT}


ENTRYPOINT = "grade"
# PrairieLearn starts the entrypoint as the container's first process (PID 1): the grader runs as this
# script's child, not as PID 1 itself, where it could not set up its sandbox ("No such process").
ENTRYPOINT_SCRIPT = """\
#!/bin/bash
# The question's entrypoint: grade ID grades /grade/student/ into /grade/results/results.json.
/usr/local/bin/grader prairielearn-run "$@"
"""
DOCKERFILE = f"""\
# PrairieLearn's external grader for this course: docker build -t YOUR-ACCOUNT/grader . && docker push ...
# BASE may be any Debian or Ubuntu image with python3 (3.10 or newer).
ARG BASE=python:3.12-slim
FROM ${{BASE}}
COPY . {HOME}/
# Installs the wheel in dist/ into /opt/grader, links `grader` into /usr/local/bin, builds the course's
# environment when requirements.txt is here (the image keeps it: jobs run offline) and validates the course.
RUN GRADER_SOURCE={HOME} bash {HOME}/setup.sh && rm -rf /var/lib/apt/lists/*
ENV GRADER_EXERCISES={HOME}/exercises
"""


def _readme(exercises: list[Exercise]) -> str:
    example = json.dumps({"externalGradingOptions": grading_options(exercises[0].id if exercises else "ID")},
                         indent=2)
    ids = "\n".join(f"- `{e.id}`: the student's file `{e.id}.{extension(e)}`"
                    for e in exercises)
    environment = bundle_environment(exercises)
    packages = (f"\nThe course's students import {', '.join(environment.packages)} (pinned in `requirements.txt`): the "
                f"image build installs them too (`{BUILD}` in setup.sh), and every job uses them offline.\n"
                if environment is not None else "")
    also = " and the course's packages" if environment is not None else ""
    return f"""# The course's PrairieLearn external grader

Build and push the image (the package index is asked only for the grader's dependencies{also}):

```bash
docker build -t YOUR-ACCOUNT/grader .
docker push YOUR-ACCOUNT/grader
```
{packages}
In each question's `info.json` (the question's file submission, e.g. `<pl-file-upload file-names="count-queens.py">`,
lands in `/grade/student/`):

```json
{example}
```

PrairieLearn runs the entrypoint without a shell, and `{HOME}/{ENTRYPOINT} ID` needs none: it runs
`grader prairielearn-run ID`, which finds the student's file in `/grade/student/`,
grades it and writes `/grade/results/results.json` itself, and exits 0 also when it cannot grade (the job is
then not gradable, so the student keeps the attempt). Exercises in this image:

{ids}
"""
