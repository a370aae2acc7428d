"""An LMS's link launches into an exam as into an exercise: its custom parameter `exam=ID`, or a target
link ending in /exams/ID, signs the learner in and opens the exam's page; a link to no exam is refused."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.exams.conftest import exam_course, move_start_back, wait_for_hand_in
from tests.lti.platform import CLAIM, Browser, Platform
from tests.server.conftest import Served


@pytest.fixture(scope="module")
def lms() -> Iterator[tuple[Platform, Served]]:
    import tempfile
    from pathlib import Path

    platform = Platform().start()
    with tempfile.TemporaryDirectory() as folder:
        served = exam_course(Path(folder), ("lti", "add-platform", *platform.registration()))
        platform.tool_url = served.url
        try:
            yield platform, served
        finally:
            served.stop()
            platform.stop()


@pytest.mark.parametrize("claims", [
    {f"{CLAIM}custom": {"exam": "tabs"}},
    {f"{CLAIM}custom": {}, f"{CLAIM}target_link_uri": "TOOL/exams/tabs"},
], ids=["custom exam=ID", "a target link to /exams/ID"])
def test_a_launch_opens_the_exam_s_page_signed_in(lms: tuple[Platform, Served], claims: dict) -> None:
    platform, served = lms
    claims = {key: value.replace("TOOL", served.url) if isinstance(value, str) else value
              for key, value in claims.items()}
    learner = Browser(platform)
    answer = learner.sign_in(sub="user-lea", **claims)
    assert answer.status_code == 303 and answer.headers["Location"] == "/exams/tabs", answer.text
    page = learner.get("/exams/tabs")
    assert page.status_code == 200 and 'id="start"' in page.text  # theirs to start, signed in by the launch


def test_a_launch_to_no_exam_is_refused(lms: tuple[Platform, Served]) -> None:
    platform, served = lms
    answer = Browser(platform).sign_in(sub="user-lea", **{f"{CLAIM}custom": {"exam": "../../staff"}})
    assert answer.status_code == 404 and "names no exam" in answer.text
    assert "Traceback" not in served.errors.read_text()


def test_an_exam_s_scores_reach_the_lms_only_when_its_results_show(lms: tuple[Platform, Served]) -> None:
    from tests.lti.test_grades import wait_until
    from tests.lti.test_launch import graded_scores, submit
    from tests.server.conftest import ADD

    platform, served = lms
    ida = Browser(platform)
    assert ida.sign_in(sub="user-ida", exercise="add-b").status_code == 303  # an exercise of `quiet`
    assert submit(ida, "add-b", ADD).status_code == 403  # an exam's work is handed in by its end only
    csrf = re.search(r'name="csrf" value="([\w-]+)"', ida.get("/exams/quiet").text)[1]  # type: ignore[index]
    assert ida.session.post(f"{served.url}/exams/quiet/start", data={"csrf": csrf}, allow_redirects=False).ok
    saved = ida.session.post(f"{served.url}/exercises/add-b/draft", data={"csrf": csrf, "code": ADD, "base": "0"},
                             headers={"Origin": served.url, "Accept": "application/json"})
    assert saved.status_code == 200, saved.text
    move_start_back(served, "quiet", 61)
    wait_for_hand_in(served, "add-b")
    assert graded_scores(ida, "add-b") == [""]  # feedback: none, on the LMS's page as on the server's
    prof = served.token("prof", staff=True)
    assert served.call("POST", "/api/lti/sync", prof).status == 200
    assert not [s for s in platform.scores if s["userId"] == "user-ida"]  # held back
    exam_file = served.root / "exams" / "quiet.yaml"
    text = exam_file.read_text()
    exam_file.write_text(text.replace(text.split("results_at: ")[1].strip(), "2020-01-01T00:00:00Z"))
    assert served.call("POST", "/api/lti/sync", prof).status == 200
    wait_until("the score at the platform", lambda: [s["scoreGiven"] for s in platform.scores
                                                     if s["userId"] == "user-ida"][-1:] == [4.0])
