"""Exams through the API of a real server: the end grades the last saved work with no hand-in, a save
after it is refused, accommodations move the end, two tabs never fork the work, hidden feedback reaches
no student before its time, staff's test runs stay out of the gradebook, and hostile requests are 4xx."""

from __future__ import annotations

import hashlib
import time
import urllib.parse

from grader.server.state import State
from tests.exams.conftest import handed_in_at_the_end, json_call
from tests.server.conftest import ADD, Served, signed_in

WORK = "# saved as typed\n" + ADD


def save(served: Served, token: str, exercise: str, code: str, base: int) -> tuple[int, dict]:
    return json_call(served, "PUT", f"/api/drafts/{exercise}", token, {"code": code, "base": base})


def submissions(served: Served, token: str, exercise: str) -> list[dict]:
    status, body = json_call(served, "GET", f"/api/submissions?exercise={exercise}", token)
    assert status == 200, body
    return body["submissions"]  # type: ignore[no-any-return]


def test_the_last_save_is_graded_at_the_end_with_no_hand_in_and_a_later_save_is_refused(course: Served) -> None:
    fay, prof = course.token("fay"), course.token("prof", staff=True)
    status, exam = json_call(course, "POST", "/api/exams/short/start", fay)
    assert status == 200 and exam["phase"] == "running" and exam["exercises"] == ["add"], exam
    assert 0 < exam["seconds_left"] <= 6 and not exam["test_run"]
    status, trial = json_call(course, "POST", "/api/exams/short/start", prof)  # staff: a test run
    assert status == 200 and trial["test_run"], trial
    assert save(course, prof, "add", ADD, 0)[0] == 200
    assert save(course, fay, "add", "# first\n", 0)[0] == 200
    status, saved = save(course, fay, "add", WORK, 1)
    assert status == 200 and "exam" in saved and saved["exam"]["seconds_left"] <= 6, saved
    # Fay's page goes away now, before her end, and nothing is handed in by her: she comes back after it.
    ends = time.monotonic() + exam["seconds_left"]
    while time.monotonic() < ends + 1:
        time.sleep(0.5)
    deadline = time.monotonic() + 120
    while not submissions(course, fay, "add") and time.monotonic() < deadline:
        time.sleep(0.5)
    found = submissions(course, fay, "add")
    assert len(found) == 1, found
    graded = course.wait(prof, found[0]["id"])
    assert graded["status"] == "done" and graded["report"]["score"] == 4.0
    seen = course.wait(fay, found[0]["id"])["report"]  # feedback: visible, until the results show
    assert [t["name"] for t in seen["tests"]] == ["add(1, 2)", "add(2, 2)"], seen
    assert any("with the exam's results" in note for note in seen["notes"]), seen
    ended = course.call("GET", "/exams/short", headers=signed_in(fay)).body
    assert f'href="/submissions/{found[0]["id"]}"' in ended and "ended at" in ended
    listed = course.call("GET", "/exams", headers=signed_in(fay)).body
    assert 'href="/exams/short"' in listed and "ended" in listed
    status, refused = save(course, fay, "add", WORK + "# too late\n", 2)
    assert status == 403 and "ended" in refused["error"], refused
    status, log = json_call(course, "GET", "/api/exams/short/log?student=fay", prof)
    assert status == 200, log
    events = log["students"][0]["events"]
    whats = [event["what"] for event in events]
    assert whats[0] == "opened" and whats.count("save") == 2 and "disconnect" in whats, whats
    handed = next(event for event in events if event["what"] == "submitted")
    assert handed["revision"] == 2 and handed["sha256"] == hashlib.sha256(WORK.encode()).hexdigest()
    assert whats.index("submitted") < whats.index("ended") < whats.index("refused")
    # The end is graded once: the sweep keeps running, and nothing more is handed in.
    time.sleep(2)
    assert len(submissions(course, fay, "add")) == 1
    # Staff's test run was graded too, and stays out of the gradebook.
    trials = submissions(course, prof, "add")
    assert any(s["student"] == "prof" for s in trials)
    status, book = json_call(course, "GET", "/api/gradebook", prof)
    names = [row["student"] for row in book["students"]]
    assert status == 200 and "prof" not in names and "fay" in names, names


def test_a_time_factor_of_1_5_moves_the_end_from_minute_60_to_minute_90(course: Served) -> None:
    gina = course.token("gina")
    assert json_call(course, "POST", "/api/exams/factor/start", gina)[0] == 200
    state = State(course.state)  # the server's own database: her start is moved back, as time would
    try:
        for minutes, expected in ((89, 200), (91, 403)):
            with state.transaction() as db:
                db.execute("UPDATE exam_starts SET started_at = ? WHERE exam = 'factor' AND student = 'gina'",
                           (time.time() - minutes * 60,))
            status, body = json_call(course, "GET", "/api/exams/factor", gina)
            assert body["minutes"] == 90 and body["time_factor"] == 1.5
            status, body = save(course, gina, "add-a", f"# minute {minutes}\n", 0 if minutes == 89 else 1)
            assert status == expected, (minutes, body)
    finally:
        state.close()


def test_two_tabs_saving_alternately_lose_nothing_the_last_receipt_holds(course: Served) -> None:
    ivy = course.token("ivy")
    assert save(course, ivy, "shout", "print(1)\n", 0)[0] == 403  # the exam's work: saved only once started
    assert json_call(course, "POST", "/api/exams/tabs/start", ivy)[0] == 200
    tabs = {"one": 0, "two": 0}
    last = None
    for turn in range(6):
        tab = ("one", "two")[turn % 2]
        code = f"print(input().upper())  # tab {tab}, turn {turn}\n"
        status, body = save(course, ivy, "shout", code, tabs[tab])
        if status == 409:  # the other tab saved meanwhile: this tab takes what the server holds, then saves
            tabs[tab] = body["current"]["revision"]
            assert body["current"]["sha256"] == last["sha256"]  # type: ignore[index]
            status, body = save(course, ivy, "shout", code, tabs[tab])
        assert status == 200, body
        tabs[tab] = body["receipt"]["revision"]
        last = body["receipt"]
    status, held = json_call(course, "GET", "/api/drafts/shout", ivy)
    assert held["revision"] == last["revision"] == 6 and held["sha256"] == last["sha256"]  # type: ignore[index]
    assert held["code"] == "print(input().upper())  # tab two, turn 5\n"


def test_with_feedback_hidden_no_score_reaches_the_student_before_results_at(course: Served) -> None:
    hana, prof = course.token("hana"), course.token("prof", staff=True)
    number = handed_in_at_the_end(course, "hana", "quiet", "add-b", ADD, minutes=61)
    assert course.wait(prof, number)["report"]["score"] == 4.0  # staff see it all
    status, mine = json_call(course, "GET", f"/api/submissions/{number}", hana)
    assert status == 200 and mine["status"] == "done" and mine["report"] is None and mine["counted_score"] is None
    assert all(s["report"] is None and s["counted_score"] is None for s in submissions(course, hana, "add-b"))
    for path in (f"/submissions/{number}", "/me"):
        text = course.call("GET", path, headers=signed_in(hana)).body
        assert "Score" not in text and "4.0" not in text and 'id="verdict"' not in text, path
    # The instructor sets results_at to now: the scores show, with nothing restarted.
    exam_file = course.root / "exams" / "quiet.yaml"
    text = exam_file.read_text()
    at = text.split("results_at: ")[1].strip()
    exam_file.write_text(text.replace(at, "2020-01-01T00:00:00Z"))
    status, mine = json_call(course, "GET", f"/api/submissions/{number}", hana)
    assert mine["report"]["score"] == 4.0 and mine["counted_score"] == 4.0, mine
    assert 'id="verdict"' in course.call("GET", f"/submissions/{number}", headers=signed_in(hana)).body


def test_hostile_exam_requests_are_refused_with_a_reason(course: Served) -> None:
    mallory, prof = course.token("mallory"), course.token("prof", staff=True)
    for exam in ("nope", "%2e%2e", "%E2%80%AE%00", "a" * 3000, "short%2F..%2Flog"):
        for method, path in (("GET", f"/api/exams/{exam}"), ("POST", f"/api/exams/{exam}/start")):
            status, body = json_call(course, method, path, mallory)
            assert status == 404, (exam[:20], body)  # ours name the reason; one no route takes is Starlette's
    status, body = json_call(course, "POST", "/api/exams/room/start", mallory)
    assert status == 403 and "rooms' addresses" in body["error"], body  # the server sees 127.0.0.1
    assert json_call(course, "POST", "/api/exams/room/start", prof)[0] == 200  # staff's test run: from anywhere
    assert save(course, prof, "add-c", ADD, 0)[0] == 200
    status, body = json_call(course, "POST", "/api/exams/later/start", mallory)
    assert status == 403 and "opens at" in body["error"], body
    assert json_call(course, "GET", "/api/exams/short/log", mallory)[0] == 403
    assert json_call(course, "GET", "/api/exams/short/log?student=%00", prof)[0] == 422
    assert json_call(course, "GET", "/api/exams/short", "")[0] == 401
    status, listed = json_call(course, "GET", "/api/exams", mallory)
    assert status == 200 and "problems" not in listed
    later = next(e for e in listed["exams"] if e["id"] == "later")
    assert later["phase"] == "not-open" and later["exercises"] == []  # nothing of it before the start
    assert course.call("GET", "/exams/room", headers=signed_in(mallory)).status == 200
    page = course.call("POST", "/exams/room/start", body=urllib.parse.urlencode({"csrf": "x"}).encode(),
                       content_type="application/x-www-form-urlencoded",
                       headers={**signed_in(mallory), "Origin": course.url})
    assert page.status == 403  # a CSRF token not the cookie's
    for fields in ({"code": "", "base": "0"}, {"code": "", "base": "0", "csrf": "forged"}):  # the page's save
        saved = course.call("POST", "/exercises/add-c/draft", body=urllib.parse.urlencode(fields).encode(),
                            content_type="application/x-www-form-urlencoded",
                            headers={**signed_in(mallory), "Origin": course.url, "Accept": "application/json"})
        assert saved.status == 403, saved.body
    broken = course.root / "exams" / "broken.yaml"
    broken.write_text("exercises: [add]\nduraton: 5\n")
    try:
        status, listed = json_call(course, "GET", "/api/exams", prof)
        assert any("broken.yaml:2:1: unknown key 'duraton'" in p for p in listed["problems"]), listed["problems"]
        assert {"short", "quiet"} <= {e["id"] for e in listed["exams"]}  # the others are still given
    finally:
        broken.unlink()
    assert "Traceback" not in course.errors.read_text()
