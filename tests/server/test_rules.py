"""Course rules from grader-course.yaml, applied by a real server: late penalties per day with a cut-off
that an extension moves, which submission counts, when hidden tests show, and what the gradebook applied."""

from __future__ import annotations

import datetime as dt
import time

from tests.conftest import run_cli
from tests.server.conftest import ADD, WRONG, Served

DAY = 86400


def stamp(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def test_the_gradebook_applies_late_penalties_extensions_and_best_and_says_so(served: Served) -> None:
    now = time.time()
    (served.root / "grader-course.yaml").write_text(f"""\
rules:
  deadline: {stamp(now - 1.5 * DAY)}
  late: {{penalty: 10, per: day, cutoff: {stamp(now + 2 * DAY)}}}
  counts: best
  exercises:
    shout:
      deadline: {stamp(now - 3 * DAY)}
      late: {{penalty: 10, per: day, cutoff: {stamp(now - DAY)}}}
      counts: latest
  extensions:
    alice: {{add: {stamp(now + DAY)}}}
""")
    alice, bob, staff = served.token("alice"), served.token("bob"), served.token("prof", staff=True)
    served.start("--workers", "1")
    first = served.wait(bob, served.submit(bob, "add", ADD).body["id"])
    assert first["late"] is True and first["late_penalty"] == 20  # 1.5 days late: two days started
    served.wait(bob, served.submit(bob, "add", WRONG).body["id"])  # worse, later: best keeps the first
    on_time = served.wait(alice, served.submit(alice, "add", ADD).body["id"])
    assert on_time["late"] is False  # her extension
    cut_off = served.submit(bob, "shout", "print(input().upper())\n")
    assert cut_off.status == 403 and "cut-off" in cut_off.body["error"]

    book = served.call("GET", "/api/gradebook", staff).body
    totals = {s["student"]: s["total"] for s in book["students"]}
    assert totals == {"alice": 4.0, "bob": 3.2}
    applied = {(a["student"], a["exercise"]): a for a in book["applied"]}
    assert applied[("bob", "add")]["submission"] == first["id"]
    assert applied[("bob", "add")]["counts"] == "best" and applied[("bob", "add")]["late_penalty"] == 20
    assert applied[("bob", "add")]["graded_score"] == 4.0 and applied[("bob", "add")]["score"] == 3.2
    assert applied[("alice", "add")]["late_penalty"] == 0


def test_hidden_tests_show_as_the_rules_say(served: Served) -> None:
    now = time.time()
    (served.root / "grader-course.yaml").write_text(f"""\
rules:
  exercises:
    add: {{hidden: after-deadline, deadline: {stamp(now + DAY)}}}
    shout: {{hidden: never}}
  extensions:
    early: {{add: {stamp(now - DAY)}}}
""")
    alice, early, staff = served.token("alice"), served.token("early"), served.token("prof", staff=True)
    served.start("--workers", "1")
    before = served.wait(alice, served.submit(alice, "add", ADD).body["id"])["report"]
    assert [t["name"] for t in before["tests"]] == ["add(1, 2)", "add(2, 2)"]
    assert before["visible_only"] is True and "show after the deadline" in before["notes"][-1]
    after = served.wait(early, served.submit(early, "add", ADD).body["id"])["report"]  # her deadline has passed
    assert [t["hidden"] for t in after["tests"]].count(True) == 2
    never = served.wait(alice, served.submit(alice, "shout", "print(input().upper())\n").body["id"])
    assert not any(t["hidden"] for t in never["report"]["tests"]) and "staff only" in never["report"]["notes"][-1]
    as_staff = served.call("GET", f"/api/submissions/{never['id']}", staff).body["report"]
    assert any(t["hidden"] for t in as_staff["tests"])


def test_a_mistake_in_the_rules_names_the_file_and_the_key(served: Served) -> None:
    (served.root / "grader-course.yaml").write_text("rules:\n  exercises:\n    add: {late: {per: week}}\n")
    result = run_cli("serve", "--state", served.state, "--exercises", served.exercises, "--port", "0")
    assert result.returncode == 2
    assert "grader-course.yaml: rules.exercises.add.late.per: 'week' is not day or hour" in result.stderr
