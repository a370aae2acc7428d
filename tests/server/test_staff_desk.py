"""The staff's desk on a real server: a class whose mistakes are known by construction, graded by `grader
serve`, read back through the grid, a student's staff page, a submission's code, and what students get wrong
(GET /api/analytics and its page). Students are refused every staff route, hostile queries never get a 500,
and a student never reads a hidden test's name while the rules hide them."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.batch.classroom import write_course
from tests.server.conftest import ADD, WRONG, Served, signed_in

NEGATIVES = "def add(a, b):\n    return a + b if a >= 0 else 1\n"  # wrong only on add(-1, 1), a hidden test
SHOUT = "print(input().upper())\n"
HIDDEN_TESTS = ("add(-1, 1)", "add(5000, 1)", "two words")
# Who handed in what, in order. By their latest submission: bob fails every test of add, dave, erin and frank
# fail add(-1, 1) alone (answering 1), alice and carol pass; carol's first submission was bob's.
CLASS = {
    "alice": [ADD],
    "bob": [WRONG],
    "carol": [WRONG, ADD],
    "dave": [NEGATIVES],
    "erin": ["# erin\n" + NEGATIVES],
    "frank": ["# frank\n" + NEGATIVES],
}
MUTANTS = {"exercises": [{"id": "add", "mutants": [
    {"id": "add:negatives@2", "rule": "condition", "what": "a wrong answer for negative numbers",
     "status": "killed", "killed_by": ["add(-1, 1)"]},
    {"id": "add:minus@2", "rule": "operator", "what": "- for +", "status": "killed",
     "killed_by": ["add(1, 2)", "add(-1, 1)", "add(5000, 1)", "add(2, 2)"]}]}]}


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("desk")
    served = Served(root, root / "state", write_course(root))
    past = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=2)).isoformat(timespec="seconds")
    (root / "grader-course.yaml").write_text(
        "rules:\n  hidden: never\n  exercises:\n"
        f"    shout: {{deadline: {past.replace('+00:00', 'Z')}, late: {{penalty: 10, per: day}}}}\n")
    (root / "mutants.json").write_text(json.dumps(MUTANTS))
    served.token("ta", staff=True)
    for student in CLASS:
        served.token(student)
    served.start("--workers", "1")
    for student, hand_ins in CLASS.items():
        for text in hand_ins:
            token = served.tokens[student]
            served.wait(token, served.submit(token, "add", text).body["id"])
    served.wait(served.tokens["alice"], served.submit(served.tokens["alice"], "shout", SHOUT).body["id"])
    yield served
    served.stop()


def staff_get(desk: Served, path: str) -> tuple[int, str]:
    answer = desk.call("GET", path, headers=signed_in(desk.tokens["ta"]))
    return answer.status, answer.body if isinstance(answer.body, str) else json.dumps(answer.body)


def text_of(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


def grid_students(html: str) -> list[str]:
    table = html[html.index('id="grid"'):html.index("</table>", html.index('id="grid"'))]
    return [unescape(name) for name in re.findall(r'<th scope="row"><a href="[^"]+">([^<]*)</a>', table)]


# ---------------------------------------------------------------- what students get wrong
def test_the_analytics_api_gives_each_tests_share_failing_by_the_students_latest_submission(desk: Served) -> None:
    answer = desk.call("GET", "/api/analytics?exercise=add", desk.tokens["ta"])
    assert answer.status == 200, answer.body
    entry = answer.body
    assert entry["id"] == "add" and entry["students"] == 6 and entry["submissions"] == 7
    shares = {t["name"]: t["failing_share"] for t in entry["tests"]}
    assert shares == {"add(1, 2)": pytest.approx(1 / 6), "add(-1, 1)": pytest.approx(4 / 6),
                      "add(5000, 1)": pytest.approx(1 / 6), "add(2, 2)": pytest.approx(1 / 6)}
    first = {t["name"]: t["failing_share_first"] for t in entry["tests"]}
    assert first["add(1, 2)"] == pytest.approx(2 / 6)  # carol's first submission failed it too
    assert entry["failing_share"] == pytest.approx(4 / 6)


def test_the_analytics_api_groups_equal_wrong_answers_with_an_example_submission(desk: Served) -> None:
    entry = desk.call("GET", "/api/analytics?exercise=add", desk.tokens["ta"]).body
    hidden = next(t for t in entry["tests"] if t["name"] == "add(-1, 1)")
    groups = [(g["answer"], g["students"]) for g in hidden["wrong_answers"]]
    assert groups == [("1", 3), ("-2", 2)]  # dave, erin, frank; bob and carol's first
    example = hidden["wrong_answers"][0]["example"]
    assert example["student"] in ("dave", "erin", "frank") and example["submission"].isdigit()
    submission = desk.call("GET", f"/api/submissions/{example['submission']}", desk.tokens["ta"]).body
    assert submission["student"] == example["student"]
    named = {m["what"]: m["students"] for m in entry["mutants"]}
    assert named == {"a wrong answer for negative numbers": 3, "- for +": 1}
    assert "fails exactly the tests 50% of the class fails" in entry["mutants"][0]["sentence"]


def test_the_analytics_page_shows_the_shares_wrong_answers_mutants_and_exports(desk: Served) -> None:
    status, html = staff_get(desk, "/staff/analytics/add")
    assert status == 200
    text = " ".join(text_of(html).split())
    assert "6 students handed it in (7 submissions)" in text
    assert "add(-1, 1) (hidden) 4 of 6 (67 %)" in text
    assert "Wrong answers to add(-1, 1)" in text and "a wrong answer for negative numbers fails exactly" in text
    assert 'href="/staff"' in html  # back to the grid
    status, body = staff_get(desk, "/api/analytics?exercise=add&format=csv&table=wrong-answers")
    assert status == 200
    rows = list(csv.DictReader(io.StringIO(body)))
    assert {(r["test"], r["answer"], r["students"]) for r in rows} >= {("add(-1, 1)", "1", "3")}


def test_an_exercise_nobody_handed_in_has_analytics_without_tests_and_an_unknown_one_is_404(desk: Served) -> None:
    empty = desk.call("GET", "/api/analytics?exercise=guess", desk.tokens["ta"])
    assert empty.status == 200 and empty.body["students"] == 0 and empty.body["tests"] == []
    assert desk.call("GET", "/api/analytics?exercise=nope", desk.tokens["ta"]).status == 404
    assert desk.call("GET", "/api/analytics", desk.tokens["ta"]).status == 422
    assert staff_get(desk, "/staff/analytics/nope")[0] == 404


# ---------------------------------------------------------------- the grid
def test_the_grid_shows_each_students_counted_score_verdict_late_and_attempts(desk: Served) -> None:
    status, html = staff_get(desk, "/staff")
    assert status == 200
    assert grid_students(html) == ["alice", "bob", "carol", "dave", "erin", "frank"]
    row = html[html.index('href="/staff/students/carol"'):]
    row = text_of(row[:row.index("</tr>")])
    assert "4 passed" in " ".join(row.split()) and "2 submissions" in row
    alice = text_of(html[html.index('href="/staff/students/alice"'):].split("</tr>")[0])
    assert "late, 10 % off" in alice  # shout came hours late: a word and a sign, not a colour alone
    assert 'id="histogram"' in html and 'id="summary-add"' in html  # the batch report's parts
    assert 'href="/staff/analytics/add"' in html


def test_the_grid_sorts_by_a_column_either_way_and_filters_by_name_verdict_and_exercise(desk: Served) -> None:
    by_add = grid_students(staff_get(desk, "/staff?sort=add&order=desc")[1])
    assert by_add[:2] == ["alice", "carol"] and by_add[-1] == "bob"
    assert grid_students(staff_get(desk, "/staff?sort=total&order=desc")[1])[0] == "alice"  # add and shout
    assert grid_students(staff_get(desk, "/staff?name=R")[1]) == ["carol", "erin", "frank"]  # any case
    assert grid_students(staff_get(desk, "/staff?verdict=wrong_answer&exercise=add")[1]) == [
        "bob", "dave", "erin", "frank"]
    html = staff_get(desk, "/staff?exercise=shout&verdict=passed")[1]
    assert grid_students(html) == ["alice"]
    header = html[html.index('id="grid"'):html.index("</thead>", html.index('id="grid"'))]
    assert "sort=add" not in header and "sort=shout" in header  # one exercise's column


@pytest.mark.parametrize("query", [
    "sort=nope&order=sideways", "sort=" + "9" * 5000, "name=" + quote("é" * 1000), "verdict=%00%ff", "exercise=..%2F..",
    "name=%ED%A0%80", "sort=total&sort=add&order=desc&order=asc", "live=2", "name=" + quote("\u202e<b>x</b>"),
])
def test_hostile_query_values_are_ignored_never_a_500(desk: Served, query: str) -> None:
    status, html = staff_get(desk, f"/staff?{query}")
    assert status in (200, 400, 414, 431), (status, html[:500])
    if status == 200:
        assert "<b>x</b>" not in html


@pytest.mark.parametrize("path", [
    "/staff/analytics/%ff", "/staff/analytics/%00", "/staff/analytics/" + "a" * 5000, "/staff/students/%ED%A0%80",
    "/staff/students/%00", "/staff/students/..%2F..%2Fetc", "/submissions/99999999999999999999", "/submissions/-1",
])
def test_hostile_staff_paths_are_4xx_never_a_500(desk: Served, path: str) -> None:
    assert staff_get(desk, path)[0] == 404


def test_hostile_analytics_queries_are_4xx(desk: Served) -> None:
    for query in ("exercise=" + "a" * 100_000, "exercise=%00", "exercise=add&format=xml", "exercise=add&table=../x",
                  "exercise=%ED%A0%80"):
        answer = desk.call("GET", f"/api/analytics?{query}", desk.tokens["ta"])
        assert 400 <= answer.status < 500, (query, answer.status)


# ---------------------------------------------------------------- a student's staff page, the code
def test_a_students_staff_page_shows_every_submission_with_hidden_tests_and_links_back(desk: Served) -> None:
    status, html = staff_get(desk, "/staff/students/carol")
    assert status == 200
    numbers = [s["id"] for s in desk.call("GET", "/api/submissions?student=carol", desk.tokens["ta"]).body["submissions"]]
    assert len(numbers) == 2
    for number in numbers:
        assert f'href="/submissions/{number}"' in html and f'id="report-{number}"' in html
    assert "add(5000, 1) (hidden)" in text_of(html)
    assert 'href="/staff"' in html


def test_a_submissions_page_shows_staff_the_code_escaped_with_line_anchors(served: Served) -> None:
    token, staff = served.token("dave"), served.token("ta", staff=True)
    served.start("--workers", "1")
    number = served.submit(token, "add", "def add(a, b):\n    # <script>alert(1)</script>\n    return a + b\n").body["id"]
    served.wait(token, number)
    html = served.call("GET", f"/submissions/{number}", headers=signed_in(staff)).body
    assert 'id="L1"' in html and 'id="L3"' in html and 'id="L4"' not in html
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'href="/staff/students/dave#ex-add"' in html
    own = served.call("GET", f"/submissions/{number}", headers=signed_in(token)).body
    assert 'id="L1"' not in own  # the code is the staff's view


def test_the_similarity_report_links_back_to_the_grid(desk: Served) -> None:
    status, html = staff_get(desk, "/staff/similarity")
    assert status == 200 and 'id="back-to-grid"' in html and 'href="/staff"' in html


# ---------------------------------------------------------------- who may see what
STAFF_PAGES = ("/staff", "/staff?sort=total", "/staff/students/alice", "/staff/analytics/add", "/staff/similarity")


def test_a_student_is_refused_every_staff_route(desk: Served) -> None:
    token = desk.tokens["bob"]
    for path in ("/api/analytics?exercise=add", "/api/analytics?exercise=nope", "/api/gradebook"):
        assert desk.call("GET", path, token).status == 403, path
    for path in STAFF_PAGES:
        answer = desk.call("GET", path, headers=signed_in(token), follow=False)
        assert answer.status in (303, 403), path
        assert "alice" not in str(answer.body), path


def test_a_student_never_reads_a_hidden_tests_name_while_the_rules_hide_them(desk: Served) -> None:
    token = desk.tokens["bob"]
    mine = desk.call("GET", "/api/submissions", token).body["submissions"]
    views = [json.dumps(mine), desk.call("GET", "/me", headers=signed_in(token)).body]
    views += [desk.call("GET", f"/submissions/{s['id']}", headers=signed_in(token)).body for s in mine]
    views += [desk.call("GET", path, headers=signed_in(token)).body for path in STAFF_PAGES]
    for view in views:
        for name in HIDDEN_TESTS:
            assert name not in str(view), name


def test_live_updates_are_an_opt_in_of_the_site_s_own_script_never_a_timed_reload(desk: Served) -> None:
    plain = staff_get(desk, "/staff")[1]
    live = staff_get(desk, "/staff?live=1&sort=total")[1]
    assert "http-equiv" not in plain and "http-equiv" not in live  # WCAG 2.2.1: no page reloads itself
    assert "<script" not in plain and 'data-live' not in plain
    assert '<script src="/static/live.js" defer></script>' in live and 'id="class-now" data-live="10"' in live
    assert 'href="?sort=total"' in live  # stopping keeps the sort
    script = desk.call("GET", "/static/live.js")
    assert script.status == 200 and "data-live" in script.body


def test_the_analytics_follow_the_queue(served: Served) -> None:
    token, staff = served.token("bob"), served.token("ta", staff=True)
    served.start("--workers", "1")
    served.wait(token, served.submit(token, "add", ADD).body["id"])
    entry = served.call("GET", "/api/analytics?exercise=add", staff).body
    assert {t["name"]: t["failing"] for t in entry["tests"]}["add(1, 2)"] == 0
    served.wait(token, served.submit(token, "add", WRONG).body["id"])  # bob's latest is wrong now
    entry = served.call("GET", "/api/analytics?exercise=add", staff).body
    assert {t["name"]: t["failing"] for t in entry["tests"]}["add(1, 2)"] == 1
    assert entry["failing_share_first"] == 0 and entry["failing_share"] == 1
