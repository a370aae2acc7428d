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


def move_start_back(served: Served, exam: str, minutes: float, student: str | None = None) -> None:
    """The exam's starts (one student's, or every one) moved back in the server's own database, as time
    would move them: the server's clock stays the only clock, and nothing else is faked."""
    from grader.server.state import State

    state = State(served.state)
    try:
        with state.transaction() as db:
            db.execute("UPDATE exam_starts SET started_at = ? WHERE exam = ?" + (" AND student = ?" if student else ""),
                       (time.time() - minutes * 60, exam, *((student,) if student else ())))
    finally:
        state.close()


def handed_in_at_the_end(served: Served, student: str, exam: str, exercise: str, code: str, minutes: float) -> int:
    """A student's exam run to its end: started, `code` saved, the start moved `minutes` back (past the
    end); the number of the submission the end hands in from the last save."""
    token = served.token(student)
    assert json_call(served, "POST", f"/api/exams/{exam}/start", token)[0] == 200
    status, body = json_call(served, "PUT", f"/api/drafts/{exercise}", token, {"code": code, "base": 0})
    assert status == 200, body
    move_start_back(served, exam, minutes, student)
    return wait_for_hand_in(served, exercise)


def wait_for_hand_in(served: Served, exercise: str, timeout: float = 60) -> int:
    staff = served.token("exam-sweep-watcher", staff=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = served.call("GET", f"/api/submissions?exercise={exercise}", staff).body
        listed = found["submissions"] if isinstance(found, dict) else found
        if listed:
            return int(listed[-1]["id"])
        time.sleep(0.2)
    raise AssertionError(f"the exam's end handed nothing in for {exercise}")
