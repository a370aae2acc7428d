"""The score that counts (the late rule applied) is shown to whoever sees a score: in the API's submission,
on the student's list and on the submission's page; computed from the score that reader is shown, so a
student whose hidden tests are withheld sees it from their visible tests, and staff see the gradebook's."""

from __future__ import annotations

import html
import time

from tests.server.conftest import Served, signed_in
from tests.server.test_rules import DAY, stamp

NEGATIVES = "def add(a, b):\n    return a + b if a >= 0 else 1\n"  # passes the visible tests, fails a hidden one


def test_a_late_hand_in_shows_the_score_that_counts_in_the_api_and_on_the_pages(served: Served) -> None:
    (served.root / "grader-course.yaml").write_text(f"""\
rules:
  deadline: {stamp(time.time() - 1.5 * DAY)}
  late: {{penalty: 10, per: day}}
  hidden: never
""")
    alice, staff = served.token("alice"), served.token("prof", staff=True)
    served.start("--workers", "1")
    seen = served.wait(alice, served.submit(alice, "add", NEGATIVES).body["id"])
    assert seen["late"] is True and seen["late_penalty"] == 20  # two days started late
    assert seen["report"]["visible_only"] is True and seen["report"]["score"] == 2
    assert seen["counted_score"] == 2 * 0.8  # from the visible score the student is shown
    assert served.call("GET", "/api/submissions", alice).body["submissions"][0]["counted_score"] == 2 * 0.8

    as_staff = served.call("GET", f"/api/submissions/{seen['id']}", staff).body
    assert as_staff["report"]["score"] == 3 and as_staff["counted_score"] == 3 * 0.8
    book = served.call("GET", "/api/gradebook?format=json", staff).body
    assert [a["score"] for a in book["applied"]] == [as_staff["counted_score"]]  # the gradebook keeps it

    listed = served.call("GET", "/me", headers=signed_in(alice)).body
    assert '<td class="counted">1.6 (20 % off)</td>' in listed
    page = html.unescape(served.call("GET", f"/submissions/{seen['id']}", headers=signed_in(alice)).body)
    assert "The score that counts: 1.6/2 (late, 20 % off)" in page
    assert "2.4" not in page  # nothing of the hidden tests' score reaches the student


def test_a_hand_in_on_time_counts_its_whole_score(served: Served) -> None:
    alice = served.token("alice")
    served.start("--workers", "1")
    done = served.wait(alice, served.submit(alice, "add", "def add(a, b):\n    return a + b\n").body["id"])
    assert done["late"] is False and done["counted_score"] == done["report"]["score"] == 4
