"""An exercise's page tells a signed-in student what they need before handing in: the statement, their
deadline (an extension included) and the time left, the late rule, and how many submissions the rate rule
still leaves them and when the next frees up. Plain HTML: it works without script, every text escaped."""

from __future__ import annotations

import html
import re
import time

from grader.server.assets import EDITOR
from tests.server.conftest import ADD, Served, signed_in
from tests.server.test_rules import DAY, stamp


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_the_page_shows_the_statement_the_deadline_with_time_left_and_submissions_left(served: Served) -> None:
    now = time.time()
    (served.root / "grader-course.yaml").write_text(f"""\
rules:
  deadline: {stamp(now + 2 * DAY + 3 * 3600 + 600)}
  late: {{penalty: 10, per: day, cutoff: {stamp(now + 5 * DAY)}}}
  rate: {{submissions: 3, per: 1h}}
  extensions:
    bob: {{add: {stamp(now + 9 * DAY + 600)}}}
""")
    alice, bob = served.token("alice"), served.token("bob")
    served.start("--workers", "1")
    before = served.call("GET", "/exercises/add", headers=signed_in(alice))
    assert before.status == 200  # no inline script; only the site's own files (the editor: tests/work/)
    assert re.findall(r"<script[^>]*>", before.body) == [f'<script src="{src}" defer>' for src in EDITOR.scripts]
    shown = text_of(before.body)
    assert "Return a + b." in shown and "<code>a + b</code>" in before.body  # the statement, as Markdown
    assert "2 d 3 h left" in shown
    assert f"10 % off per day started late; nothing is taken after {stamp(now + 5 * DAY)}." in shown
    assert "Submissions left: 3 of 3 per 1 h." in shown

    served.wait(alice, served.submit(alice, "add", ADD).body["id"])
    served.wait(alice, served.submit(alice, "add", ADD).body["id"])
    after = text_of(served.call("GET", "/exercises/add", headers=signed_in(alice)).body)
    assert re.search(r"Submissions left: 1 of 3 per 1 h; the next frees up in 59 min \d+ s\.", after), after
    assert after.count("passed") >= 2  # her submissions of it, listed

    for_bob = text_of(served.call("GET", "/exercises/add", headers=signed_in(bob)).body)
    assert "9 d left" in for_bob and "Submissions left: 3 of 3" in for_bob  # his extension, his own count
    moved = stamp(now + 5 * DAY + (9 * DAY + 600) - (2 * DAY + 3 * 3600 + 600))
    assert f"nothing is taken after {moved}." in for_bob  # the cut-off moves with his deadline

    served.submit(alice, "add", ADD)
    spent = text_of(served.call("GET", "/exercises/add", headers=signed_in(alice)).body)
    assert re.search(r"Submissions left: 0 of 3 per 1 h; the next frees up in 59 min \d+ s\.", spent), spent
    assert served.submit(alice, "add", ADD).status == 429  # the page and the refusal read the same rule


def test_a_page_past_the_deadline_says_so_and_an_unknown_exercise_is_not_found(served: Served) -> None:
    (served.root / "grader-course.yaml").write_text(f"rules:\n  deadline: {stamp(time.time() - DAY)}\n")
    alice = served.token("alice")
    served.start("--workers", "1")
    shown = text_of(served.call("GET", "/exercises/shout", headers=signed_in(alice)).body)
    assert ", passed." in shown and "No limit on submissions." in shown
    missing = served.call("GET", "/exercises/%3Cscript%3E", headers=signed_in(alice))
    assert missing.status == 404 and "<script>" not in missing.body
    signed_out = served.call("GET", "/exercises/add", follow=False)  # signed out: the sign-in, as a 401
    assert signed_out.status == 401 and "token" in signed_out.body.lower()
    listed = served.call("GET", "/me", headers=signed_in(alice)).body
    assert '<a href="/exercises/add">add</a>' in listed
