"""What an exam closes, through every door of the server: an exam's exercise page before the student starts
it, an upload of its work (the end hands in the last save, nothing else does), and a run of the visible tests
while the exam holds its feedback back. Staff are never refused."""

from __future__ import annotations

import urllib.parse

from tests.exams.conftest import json_call
from tests.server.conftest import ADD, CSRF, Served, signed_in


def form(served: Served, token: str, path: str, fields: dict[str, str]) -> tuple[int, str]:
    headers = {**signed_in(token), "Origin": served.url}
    body = urllib.parse.urlencode({"csrf": CSRF, **fields}).encode()
    answer = served.call("POST", path, body=body, content_type="application/x-www-form-urlencoded",
                         headers=headers, follow=False)
    return answer.status, str(answer.body)


def test_an_exam_closes_its_exercise_page_its_uploads_and_its_runs(course: Served) -> None:
    ivy, staff = course.token("ivy"), course.token("teacher-gate", staff=True)
    # "quiet" holds add-b's feedback back until its results are out.
    before = course.call("GET", "/exercises/add-b", headers=signed_in(ivy))
    assert before.status == 403 and "/exams/quiet" in before.body
    assert course.call("GET", "/exercises/add-b", headers=signed_in(staff)).status == 200
    sent = course.submit(ivy, "add-b", ADD)
    assert sent.status == 403 and "exam quiet" in sent.body["error"], sent.body
    assert json_call(course, "POST", "/api/exams/quiet/start", ivy)[0] == 200
    assert course.call("GET", "/exercises/add-b", headers=signed_in(ivy)).status == 200
    status, page = form(course, ivy, "/exercises/add-b/run", {"code": ADD, "base": "0"})
    assert status == 403 and "no test results" in page
    assert course.submit(ivy, "add-b", ADD).status == 403  # started or not: the end hands the work in
    assert form(course, ivy, "/exercises/add-b/hand-in", {"code": ADD, "base": "0"})[0] == 403
    assert course.submit(staff, "add-b", ADD).status == 202
    # A save from the exercise's own page is a save of the exam's work: in its log, as the exam page's are.
    assert form(course, ivy, "/exercises/add-b/draft", {"code": ADD, "base": "0"})[0] == 303
    log = json_call(course, "GET", "/api/exams/quiet/log?student=ivy", staff)[1]
    assert [e["revision"] for e in log["students"][0]["events"] if e["what"] == "save"] == [1]
    assert "Traceback" not in course.errors.read_text()
