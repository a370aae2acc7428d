"""A review reaches the LMS as the gradebook counts it: nothing while it is pending, its rubric points once
released (the passback reads the gradebook's counted score, which is made in one place)."""

from __future__ import annotations

import json

from tests.lti.platform import Browser, Platform
from tests.lti.test_grades import sync, wait_until
from tests.lti.test_launch import graded_scores, submit
from tests.server.conftest import Served
from tests.server.test_reviews import PARTLY, RUBRIC


def test_a_pending_review_sends_nothing_and_a_released_one_sends_the_score_with_its_rubric_points(
        tool: Served, platform: Platform) -> None:
    spec = tool.exercises / "add.yaml"
    spec.write_text(spec.read_text() + RUBRIC)  # before the module's first grading reads it
    dee = Browser(platform)
    dee.sign_in(sub="user-dee")
    submit(dee, "add", PARTLY)
    graded_scores(dee, "add")
    sent = wait_until("the tests' score", lambda: [s["scoreGiven"] for s in platform.scores
                                                   if s["userId"] == "user-dee"][-1:] == [3.0])
    assert sent
    ta = tool.token("ta", staff=True)
    number = tool.call("GET", "/api/submissions?student=dee", ta).body["submissions"][-1]["id"]
    review = tool.call("POST", "/api/reviews", ta, json.dumps({"submission": number, "rubric": ["no-docstring"]})
                       .encode(), "application/json")
    assert review.status == 200, review.body
    before = len(platform.scores)
    sync(tool)
    assert len(platform.scores) == before  # pending: the LMS hears nothing of it
    released = tool.call("POST", "/api/reviews/release", ta, json.dumps({"student": "dee"}).encode(),
                         "application/json")
    assert released.body == {"released": [number]}
    sync(tool)
    assert [s["scoreGiven"] for s in platform.scores if s["userId"] == "user-dee"][-1] == 2.0
