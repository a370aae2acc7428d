"""What a student sees is made from their visible tests alone until the course's `hidden:` rule shows the
hidden ones: two classes that differ only in how their hand-ins fare on hidden tests read the same,
byte for byte, on every page and API reply a student gets (ids and times aside)."""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from pathlib import Path

from grader.server.client import multipart
from tests.batch.classroom import write_course
from tests.conftest import run_cli
from tests.server.conftest import CSRF, WRONG, Answer, Served, signed_in

DAY = 86400
# Per exercise: a hand-in that passes every test, and one that passes the same visible tests and fails
# the hidden ones (add: raises on them; shout: keeps a line of two words as it is).
HAND_INS = {
    "add": ("def add(a, b):\n    return a + b\n",
            "def add(a, b):\n    if not 0 <= a <= 1000:\n        raise ValueError(a)\n    return a + b\n"),
    "shout": ("print(input().upper())\n",
              "line = input()\nprint(line.upper() if ' ' not in line else line)\n"),
}
# Times, and the sandbox's uid (a slot of the machine's, whichever was free): what differs between two runs
# of the same hand-in.
RUNS_DIFFER = (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), re.compile(r'"cpu_seconds":\s*[0-9.e+-]+'),
               re.compile(r"\d+\.\d\d / \d+\.\d\d s"), re.compile(r"uid \d+"))


def stamp(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def normalised(answer: Answer | str) -> str:
    if isinstance(answer, str):
        text = answer
    else:
        body = answer.body if isinstance(answer.body, str) else json.dumps(answer.body)
        text = f"{answer.status} {answer.headers.get('Content-Type')} {answer.headers.get('Location')} {body}"
    for pattern in RUNS_DIFFER:
        text = pattern.sub("<differs>", text)
    return text


def what_a_student_sees(served: Served, variant: int, tmp_path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Every student-facing reply of a server where alice handed in the variant's files; and, to show that
    the two classes do differ, what staff read of the same submissions."""
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--workers", "1")
    browser = signed_in(alice)
    ids = [served.submit(alice, "add", WRONG).body["id"]]
    ids += [served.submit(alice, exercise, files[variant]).body["id"] for exercise, files in HAND_INS.items()]
    for number in ids:
        assert served.wait(alice, number)["status"] == "done"
    seen: dict[str, Answer | str] = {
        "GET /api/submissions": served.call("GET", "/api/submissions", alice),
        "GET /api/submissions?exercise=add": served.call("GET", "/api/submissions?exercise=add", alice),
        "GET /api/health": served.call("GET", "/api/health", alice),
        "GET /me": served.call("GET", "/me", headers=browser),
        "GET /": served.call("GET", "/", headers=browser, follow=False),
        "POST /api/submissions refused": served.submit(alice, "add", b"x", name="add.exe"),
        "POST /submit refused": served.call(
            "POST", "/submit", None, *multipart({"exercise": "add", "csrf": CSRF}, "file", "add.exe", b"x"),
            headers=browser),
    }
    for number in ids:
        seen[f"GET /api/submissions/{number}"] = served.call("GET", f"/api/submissions/{number}", alice)
        seen[f"GET /api/submissions/{number}?wait=1"] = served.call("GET", f"/api/submissions/{number}?wait=1",
                                                                   alice)
        seen[f"GET /submissions/{number}"] = served.call("GET", f"/submissions/{number}", headers=browser)
    for exercise, files in HAND_INS.items():  # the student's own client, as it prints and as JSON
        (tmp_path / f"{exercise}.py").write_text(files[variant])
        for form in ("terminal", "json"):
            result = run_cli("submit", exercise, tmp_path / f"{exercise}.py", "--server", served.url, "--token",
                             alice, "--format", form)
            seen[f"grader submit {exercise} --format {form}"] = f"{result.returncode} {result.stdout}"
    for answer in seen.values():
        assert isinstance(answer, str) or answer.status < 500, answer
    staff_sees = {str(n): normalised(served.call("GET", f"/api/submissions/{n}", staff)) for n in ids}
    served.stop()
    return {route: normalised(answer) for route, answer in seen.items()}, staff_sees


def test_hidden_results_change_nothing_a_student_sees_before_the_rules_show_them(tmp_path: Path) -> None:
    exercises = write_course(tmp_path)
    now = time.time()
    (tmp_path / "grader-course.yaml").write_text(f"""\
rules:
  exercises:
    add: {{hidden: after-deadline, deadline: {stamp(now + DAY)}}}
    shout: {{hidden: never}}
""")
    seen, staff = [], []
    for variant in (0, 1):
        root = tmp_path / f"class-{variant}"
        root.mkdir()
        student, teacher = what_a_student_sees(Served(root, root / "state", exercises), variant, root)
        seen.append(student)
        staff.append(teacher)
    assert staff[0] != staff[1]  # the two classes differ: on hidden tests only
    assert seen[0].keys() == seen[1].keys()
    for route in seen[0]:
        assert seen[0][route] == seen[1][route], route
    assert "passed" in seen[0]["GET /me"] and "4.0" not in seen[0]["GET /me"]  # 2 visible points of add's 4


def test_a_student_sees_hidden_results_once_the_rules_show_them(served: Served) -> None:
    (served.root / "grader-course.yaml").write_text(f"rules:\n  hidden: after-deadline\n  deadline: "
                                                   f"{stamp(time.time() - DAY)}\n")
    alice = served.token("alice")
    served.start("--workers", "1")
    number = served.submit(alice, "add", HAND_INS["add"][1]).body["id"]
    graded = served.wait(alice, number)["report"]
    assert graded["verdict"] == "runtime_error" and graded["score"] == 2.0 and graded["max_score"] == 4.0
    listed = served.call("GET", "/me", headers=signed_in(alice)).body
    assert "runtime_error" in listed and "2.0" in listed
