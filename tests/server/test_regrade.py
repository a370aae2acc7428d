"""A regrade after a spec changed grades again only what changed, and a TA's override survives it."""

from __future__ import annotations

from tests.server.conftest import ADD, WRONG, Served


def test_a_regrade_grades_only_what_changed_and_keeps_a_tas_override(served: Served) -> None:
    alice, bob, staff = served.token("alice"), served.token("bob"), served.token("prof", staff=True)
    served.start("--workers", "1")
    first = [served.submit(alice, "add", ADD).body["id"], served.submit(bob, "add", WRONG).body["id"]]
    other = served.submit(alice, "shout", "print(input().upper())\n").body["id"]
    for number in (*first, other):
        served.wait(staff, number)
    assert served.call("POST", "/api/regrade", staff, b"{}", "application/json").body == {"queued": []}
    override = served.call("POST", "/api/overrides", staff,
                           b'{"student": "bob", "exercise": "add", "score": 3, "reason": "partial credit"}',
                           "application/json")
    assert override.status == 200

    spec = served.exercises / "add.yaml"  # a test fixed: worth 2 points now
    spec.write_text(spec.read_text().replace("    call: add(2, 2)\n    expect: 4\n",
                                             "    call: add(2, 2)\n    expect: 4\n    points: 2\n"))
    assert served.call("POST", "/api/regrade", served.token("alice"), b"{}", "application/json").status == 403
    regraded = served.call("POST", "/api/regrade", staff, b"{}", "application/json")
    assert regraded.status == 202 and sorted(regraded.body["queued"]) == sorted(first)  # not shout's
    for number in first:
        assert served.wait(staff, number)["report"]["max_score"] == 5.0

    book = served.call("GET", "/api/gradebook", staff).body
    totals = {s["student"]: s["total"] for s in book["students"]}
    assert totals == {"alice": 5.0 + 4.0, "bob": 3.0}
    applied = {(a["student"], a["exercise"]): a for a in book["applied"]}
    assert applied[("bob", "add")]["override"] == {"score": 3.0, "reason": "partial credit", "by": "prof",
                                                   "at": applied[("bob", "add")]["override"]["at"]}
    assert applied[("bob", "add")]["graded_score"] == 0.0 and "override" not in applied[("alice", "add")]


SHARED = """\
def shout(line):
    words = []
    for word in line.split(" "):
        letters = []
        for letter in word:
            letters.append(letter.upper())
        words.append("".join(letters))
    return " ".join(words)


text = input()
result = shout(text)
print(result)
"""


def test_staff_see_the_similarity_report_of_the_submissions_that_count(served: Served) -> None:
    alice, bob, staff = served.token("alice"), served.token("bob"), served.token("prof", staff=True)
    served.start("--workers", "1")
    for token, code in ((alice, SHARED), (bob, SHARED.replace("letters", "chars").replace("text", "given"))):
        served.wait(token, served.submit(token, "shout", code).body["id"])
    index = served.call("GET", "/staff/similarity", staff)
    assert index.status == 200 and "alice" in index.body and "bob" in index.body, index.body
    assert "pairs/1.html" in index.body
    assert served.call("GET", "/staff/similarity/pairs/1.html", staff).status == 200
    assert served.call("GET", "/staff/similarity/../state.sqlite", staff).status == 404
    as_student = served.call("GET", "/staff/similarity", alice)
    assert as_student.status == 403 and "pairs/1.html" not in as_student.body  # for the instructor only
