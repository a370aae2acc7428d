"""The score that counts is one number, whoever reads it. After each kind of change (a hand-in, a late
hand-in, an override, a review released, a regrade answered on the latest submission and on an older one)
every reader of it says the same: the student's /me page, their /api/submissions and the submission's page,
staff's /api/submissions, the class grid, the gradebook's JSON, CSV and LMS exports, the LTI passback's
scores and `grader submit`'s "counts" line. One real server; the readers are read as their users read them."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import time
from types import SimpleNamespace

from tests.conftest import run_cli
from tests.server.conftest import Served, signed_in
from tests.server.test_reviews import PARTLY, post, with_rubric
from tests.server.test_rules import DAY, stamp

FULL = "def add(a, b):\n    return a + b\n"
SHOUT = "print(input().upper())\n"
NO_LOGIN = {"GRADER_SERVER": "", "GRADER_TOKEN": ""}


class Readers:
    """Every place the score that counts is read, each read its own way."""

    def __init__(self, served: Served, staff: str) -> None:
        self.served, self.staff = served, staff
        from grader.course import Course
        from grader.server.queue import Exercises
        from grader.server.rules import load_rules
        from grader.server.state import State

        # The LTI passback's computation, run in-process on the server's own database (as its thread does).
        self.server = SimpleNamespace(state=State(served.state), exercises=Exercises(Course.at(served.exercises)),
                                      rules=load_rules(served.root / "grader-course.yaml"))

    def all(self, token: str, student: str, exercise: str) -> dict[str, object]:
        served, staff = self.served, self.staff
        found: dict[str, object] = {}
        mine = served.call("GET", f"/api/submissions?exercise={exercise}", token).body["submissions"]
        counted = [s for s in mine if s["counted"]]
        assert len(counted) == 1, mine
        found["student's /api/submissions"] = counted[0]["counted_score"]
        number = counted[0]["id"]
        page = html.unescape(served.call("GET", f"/submissions/{number}", headers=signed_in(token)).body)
        found["student's submission page"] = _number(re.search(r"The score that counts: ([\d.]+)/", page))
        me = served.call("GET", "/me", headers=signed_in(token)).body
        row = re.search(rf'<tr class="counts-now"><td><a href="/submissions/{number}">.*?<td class="counted">([\d.]+)',
                        me, re.S)
        found["student's /me"] = _number(row)
        theirs = served.call("GET", f"/api/submissions?student={student}&exercise={exercise}", staff).body
        found["staff's /api/submissions"] = next(s["counted_score"] for s in theirs["submissions"] if s["counted"])
        grid = served.call("GET", "/staff", staff).body
        cell = re.search(rf'data-value="([^"]+)"><span class="score">[^<]*</span> <span class="word">[^<]*</span>\s*'
                         rf'<span class="note"><a href="/submissions/(\d+)" aria-label="submission \d+ of {student} '
                         rf'for {exercise}"', grid)
        assert cell and int(cell[2]) == number, grid[-3000:]
        found["staff grid"] = float(cell[1])
        book = served.call("GET", "/api/gradebook?format=json", staff).body
        found["gradebook JSON"] = next(s for s in book["students"] if s["student"] == student)["exercises"][exercise][
            "score"]
        found["gradebook applied"] = next(a["score"] for a in book["applied"]
                                          if (a["student"], a["exercise"]) == (student, exercise))
        for kind in ("csv", "plain", "canvas"):
            table = list(csv.reader(io.StringIO(served.call("GET", f"/api/gradebook?format={kind}", staff).body)))
            title = next(e["title"] for e in book["exercises"] if e["id"] == exercise)  # an LMS's column name
            column = next(i for i, name in enumerate(table[0]) if name.split(" (")[0] in (exercise, title))
            line = next(r for r in table if student in r)
            found[f"gradebook {kind}"] = float(line[column])
        from grader.platforms.lti.passback import counted_scores

        found["LTI passback"] = counted_scores(self.server)[1][(student, exercise)]
        return found


def _number(found: re.Match[str] | None) -> float | None:
    return float(found[1]) if found else None


def agree(readings: dict[str, object], expected: float) -> None:
    wrong = {reader: value for reader, value in readings.items()
             if not isinstance(value, (int, float)) or abs(value - expected) > 1e-6}
    assert not wrong, f"every reader should say {expected:g}; these do not: {wrong} (all: {readings})"


def submit(served: Served, token: str, exercise: str, code: str, *format_: str) -> str:
    path = served.root / "hand-ins" / f"{exercise}.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(code)
    done = run_cli("submit", exercise, path, "--server", served.url, "--token", token, *format_, env=NO_LOGIN)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def test_every_reader_of_the_score_that_counts_says_the_same_after_each_kind_of_change(served: Served) -> None:
    (served.root / "grader-course.yaml").write_text(f"""\
rules:
  hidden: always
  exercises:
    shout: {{deadline: {stamp(time.time() - 1.5 * DAY)}, late: {{penalty: 10, per: day, cutoff: {stamp(time.time() + 2 * DAY)}}}}}
""")
    with_rubric(served)
    ta, alice, bob = served.token("ta", staff=True), served.token("alice"), served.token("bob")
    served.start("--workers", "1")
    readers = Readers(served, ta)

    # A hand-in: `grader submit --format json` says what counts (3 of add's 4 points).
    printed = json.loads(submit(served, alice, "add", PARTLY, "--format", "json"))
    assert printed["counted_score"] == 3.0
    first = printed["id"]
    agree(readers.all(alice, "alice", "add"), 3.0)

    # A late hand-in: two days started, 20 % off; the terminal's "counts" line says it too.
    line = re.search(r"The score that counts: ([\d.]+)/4", submit(served, bob, "shout", SHOUT))
    assert line and float(line[1]) == 4 * 0.8
    agree(readers.all(bob, "bob", "shout"), 3.2)

    # An override: a TA's score for the exercise replaces the late one's.
    assert post(served, "/api/overrides", ta, {"student": "bob", "exercise": "shout", "score": 1.5,
                                                "reason": "shared code"}).status == 200
    agree(readers.all(bob, "bob", "shout"), 1.5)

    # A review, released: its rubric points count.
    post(served, "/api/reviews", ta, {"submission": first, "rubric": ["no-docstring"]})
    agree(readers.all(alice, "alice", "add"), 3.0)  # pending: not yet
    post(served, "/api/reviews/release", ta, {"student": "alice"})
    agree(readers.all(alice, "alice", "add"), 2.0)

    # A regrade request on the latest submission, answered with a new score: that submission's score.
    asked = post(served, "/api/regrade-requests", alice,
                 {"submission": first, "test": "add(2, 2)", "message": "2 + 2 is 4"}).body["id"]
    answer = post(served, f"/api/regrade-requests/{asked}", ta, {"message": "Fair: 3.5", "score": 3.5}).body
    assert answer["counted"] == {"submission": first, "score": 3.5, "from": "regrade"}
    assert [(a["submission"], a["score"], a["before"], a["after"]) for a in answer["answers"]] == [
        (first, 3.5, 2.0, 3.5)]
    agree(readers.all(alice, "alice", "add"), 3.5)

    # A newer hand-in counts (latest); then a request about the OLD one, answered, changes the old one's
    # score and not the score that counts.
    newer = json.loads(submit(served, alice, "add", FULL, "--format", "json"))
    assert newer["counted_score"] == 4.0 and newer["counted"] is True
    agree(readers.all(alice, "alice", "add"), 4.0)
    again = post(served, "/api/regrade-requests", alice,
                 {"submission": first, "test": "add(2, 2)", "message": "and the old one?"}).body["id"]
    answer = post(served, f"/api/regrade-requests/{again}", ta, {"message": "Old one: 1", "score": 1}).body
    assert answer["counted"] == {"submission": newer["id"], "score": 4.0, "from": "tests"}
    assert [(a["submission"], a["before"], a["after"]) for a in answer["answers"]] == [(first, 4.0, 4.0)]
    agree(readers.all(alice, "alice", "add"), 4.0)
    old = served.call("GET", f"/api/submissions/{first}", alice).body
    assert old["counted"] is False and old["counted_score"] == 1.0 and old["regrade_score"] == 1.0
    thread = html.unescape(re.sub(r"<[^>]+>", "", served.call("GET", f"/regrade-requests/{again}",
                                                              headers=signed_in(ta)).body))
    assert f"What counts now for add: submission {newer['id']}, 4/4" in thread
    assert f"about submission {first}, which does not count now" in thread
    assert "the score that counts for add: 4 before, 4 after" in thread
    readers.server.state.close()


def test_an_answer_to_a_request_about_an_old_submission_counts_when_the_rule_is_best(served: Served) -> None:
    """With `counts: best`, an answer that lifts an older submission above the newer one makes it count."""
    (served.root / "grader-course.yaml").write_text("rules:\n  counts: best\n")
    ta, alice = served.token("ta", staff=True), served.token("alice")
    served.start("--workers", "1")
    first = served.wait(alice, served.submit(alice, "add", "def add(a, b):\n    return 0\n").body["id"])
    second = served.wait(alice, served.submit(alice, "add", PARTLY).body["id"])
    asked = post(served, "/api/regrade-requests", alice,
                 {"submission": first["id"], "test": "add(1, 2)", "message": "?"}).body["id"]
    answer = post(served, f"/api/regrade-requests/{asked}", ta, {"message": "Full marks", "score": 4}).body
    assert answer["counted"] == {"submission": first["id"], "score": 4.0, "from": "regrade"}
    mine = {s["id"]: s for s in served.call("GET", "/api/submissions", alice).body["submissions"]}
    assert mine[first["id"]]["counted"] and not mine[second["id"]]["counted"]
    book = served.call("GET", "/api/gradebook", ta).body
    assert [(a["submission"], a["score"], a["parts"]["from"]) for a in book["applied"]] == [
        (first["id"], 4.0, "regrade")]


def test_a_hostile_regrade_score_is_refused_and_changes_nothing(served: Served) -> None:
    ta, alice = served.token("ta", staff=True), served.token("alice")
    served.start("--workers", "1")
    number = served.wait(alice, served.submit(alice, "add", PARTLY).body["id"])["id"]
    asked = post(served, "/api/regrade-requests", alice,
                 {"submission": number, "test": "add(2, 2)", "message": "?"}).body["id"]
    for score in (-1, 4.5, "3", True, [3], {"score": 3}, 1e308, "NaN"):
        answer = post(served, f"/api/regrade-requests/{asked}", ta, {"message": "x", "score": score})
        assert answer.status == 422, (score, answer.body)
    nan = served.call("POST", f"/api/regrade-requests/{asked}", ta, b'{"message": "x", "score": NaN}',
                      "application/json")
    assert nan.status in (400, 422), nan.body
    assert served.call("GET", f"/api/submissions/{number}", alice).body["counted_score"] == 3.0
    assert served.call("GET", "/api/audit?student=alice", ta).body["changes"] == []
    page = served.call("GET", f"/regrade-requests/{asked}", headers=signed_in(ta)).body
    assert "New score of submission" in page and "What counts now for add" in page
