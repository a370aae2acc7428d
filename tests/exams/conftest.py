"""A real `grader serve` of a small course with exams whose times are set relative to now: `short` lasts
6 seconds (a student's whole exam, scaled down: the waiting is real), the others an hour or more."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.batch.classroom import COURSE, write_course
from tests.conftest import run_cli
from tests.server.conftest import Served

SHORT_MINUTES = 0.1  # 6 s: long enough for a save, short enough to wait for its end


def stamp(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def exam_files(now: float) -> dict[str, str]:
    hour = 3600
    window = f"opens: {stamp(now - 3 * hour)}\ncloses: {stamp(now + 3 * hour)}\n"
    return {
        "short": f"title: A short one\nexercises: [add]\n{window}duration: {SHORT_MINUTES}\n",
        "tabs": f"exercises: [shout]\n{window}duration: 60\n",
        "factor": f"exercises: [add-a]\n{window}duration: 60\nstudents:\n  gina: {{time_factor: 1.5}}\n",
        "quiet": f"exercises: [add-b]\n{window}duration: 60\nfeedback: none\nresults_at: {stamp(now + 24 * hour)}\n",
        "room": f"exercises: [add-c]\n{window}duration: 60\naddresses: [10.9.0.0/16, \"2001:db8::/32\"]\n",
        "later": f"exercises: [guess]\nopens: {stamp(now + 24 * hour)}\ncloses: {stamp(now + 27 * hour)}\nduration: 60\n",
    }


def exam_course(root: Path, *before_start: tuple[str, ...]) -> Served:
    """The course with its exams, served; `before_start`: `grader serve` commands run first (an LMS's
    registration)."""
    exercises = write_course(root)
    for copy in ("add-a", "add-b", "add-c"):
        (exercises / f"{copy}.yaml").write_text(COURSE["add"])
    (root / "exams").mkdir()
    for name, text in exam_files(time.time()).items():
        (root / "exams" / f"{name}.yaml").write_text(text)
    served = Served(root, root / "state", exercises)
    for command in before_start:
        done = run_cli("serve", *command, "--state", served.state)
        assert done.returncode == 0, done.stderr
    served.start("--workers", "1", "--insecure-cookies")
    return served


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = exam_course(tmp_path_factory.mktemp("exams"))
    yield served
    served.stop()


def json_call(served: Served, method: str, path: str, token: str, body: object = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else (b"{}" if method == "POST" else None)
    answer = served.call(method, path, token, data, "application/json" if data is not None else None)
    return answer.status, answer.body
