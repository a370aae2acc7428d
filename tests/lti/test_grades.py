"""Scores to the LMS and the roster from it, against the platform of tests/lti/platform.py: the score the
gradebook counts is sent to the launch's line item once it changes (an override, a regrade), a failed send
is shown to staff and tried again until the platform takes it, and the roster comes back by NRPS. The
tool's requests are the real ones: a client assertion signed with its published key, then the AGS score."""

from __future__ import annotations

import json
import time

import jwt

from tests.conftest import run_cli
from tests.lti.platform import INSTRUCTOR, LEARNER, Browser, Platform
from tests.lti.test_launch import graded_scores, submit
from tests.server.conftest import ADD, WRONG, Served


def sync(tool: Served) -> dict:
    answer = tool.call("POST", "/api/lti/sync", tool.token("ta", staff=True))
    assert answer.status == 200, answer.body
    return answer.body  # type: ignore[no-any-return]


def status(tool: Served) -> dict:
    return tool.call("GET", "/api/lti/status", tool.token("ta", staff=True)).body  # type: ignore[no-any-return]


def wait_until(what: str, check, timeout: float = 60):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_counted_score_reaches_the_line_item_and_an_override_sends_the_new_one(tool: Served, platform: Platform) -> None:
    ada = Browser(platform)
    ada.sign_in(sub="user-ada")
    submit(ada, "add", WRONG)
    submit(ada, "add", ADD)
    graded_scores(ada, "add")
    # The tool's own round sends it, with no call from us (the wrong answer's 0 first, if a round saw it).
    wait_until("the score at the platform", lambda: [s["scoreGiven"] for s in platform.scores
                                                     if s["userId"] == "user-ada"][-1:] == [4.0])
    score = [s for s in platform.scores if s["userId"] == "user-ada"][-1]
    assert score["scoreMaximum"] == 4
    assert score["activityProgress"] == "Completed" and score["gradingProgress"] == "FullyGraded"
    assert platform.score_headers[-1]["Content-Type"] == "application/vnd.ims.lis.v1.score+json"
    sent = len(platform.scores)
    sync(tool)
    assert len(platform.scores) == sent  # unchanged: not sent again

    override = tool.call("POST", "/api/overrides", tool.token("ta", staff=True), json.dumps(
        {"student": "ada", "exercise": "add", "score": 1.5, "reason": "copied"}).encode(), "application/json")
    assert override.status == 200
    sync(tool)
    assert platform.scores[-1]["userId"] == "user-ada" and platform.scores[-1]["scoreGiven"] == 1.5


def test_a_send_the_platform_refuses_is_shown_to_staff_and_retried_until_taken(tool: Served, platform: Platform) -> None:
    bob = Browser(platform)
    bob.sign_in(sub="user-bob")
    platform.fail_scores = 1_000  # the LMS is down
    submit(bob, "add", ADD)
    graded_scores(bob, "add")
    failed = wait_until("a failure shown", lambda: [f for f in status(tool)["failed"] if f["user_id"] == "user-bob"])
    assert "500" in failed[0]["error"] and failed[0]["wanted"] == 4.0 and failed[0]["sent"] is None
    teacher = Browser(platform)  # and on the exercise's page, where an instructor opens it from the LMS
    teacher.sign_in(sub="user-hopper", roles=(INSTRUCTOR,))
    page = teacher.get("/lti/exercises/add").text
    assert "Scores the LMS has not taken" in page and "<td>bob</td>" in page and "500" in page
    platform.fail_scores = 0  # back up: the next try (backed off) gets through
    wait_until("the retried score", lambda: any(s["userId"] == "user-bob" for s in platform.scores), timeout=90)
    assert not [f for f in status(tool)["failed"] if f["user_id"] == "user-bob"]
    assert "<td>bob</td>" not in teacher.get("/lti/exercises/add").text
    bob.sign_in(sub="user-bob")
    assert "Scores the LMS" not in bob.get("/lti/exercises/add").text  # a learner's page has no such table


def test_a_regrade_that_changes_a_score_sends_it(tool: Served, platform: Platform, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    cy = Browser(platform)
    cy.sign_in(sub="user-cy")
    submit(cy, "add", "def add(a, b):\n    return 3\n")  # right for add(1, 2) only
    first = graded_scores(cy, "add")[0]
    wait_until("the first score", lambda: any(s["userId"] == "user-cy" for s in platform.scores))
    spec = tool.exercises / "add.yaml"
    text = spec.read_text()
    spec.write_text(text.replace("    expect: 3\n", "    expect: 3\n    points: 3\n", 1))  # add(1, 2) now weighs 3
    try:
        answer = tool.call("POST", "/api/regrade", tool.token("ta", staff=True), json.dumps({"exercise": "add"}).encode(),
                           "application/json")
        assert answer.status == 202
        wait_until("the regraded score", lambda: [s for s in platform.scores if s["userId"] == "user-cy"][-1]
                   ["scoreGiven"] != float(first.split(" / ")[0]), timeout=120)
    finally:
        spec.write_text(text)


def test_the_roster_comes_back_from_the_platform_with_who_never_launched(tool: Served, platform: Platform) -> None:
    platform.members = [
        {"user_id": "user-dee", "name": "Dee", "email": "dee@example.org", "roles": [LEARNER], "status": "Active"},
        {"user_id": "user-never", "name": "Never Launched", "email": "never@example.org", "roles": [LEARNER],
         "status": "Active"},
    ]
    Browser(platform).sign_in(sub="user-dee")
    synced = sync(tool)
    assert {"issuer": platform.issuer, "context": "course-1", "members": 2} in synced["rosters"]
    roster = {m["user_id"]: m for m in status(tool)["roster"]}
    assert roster["user-dee"]["student"] == "dee" and roster["user-never"]["student"] is None
    assert roster["user-never"]["email"] == "never@example.org"


def test_a_learner_the_roster_lists_is_sent_the_score_they_handed_in_with_a_token_without_ever_launching(
        tool: Served, platform: Platform) -> None:
    platform.members = [
        {"user_id": "user-ivy", "name": "Ivy", "email": "ivy@example.org", "ext_user_username": "ivy",
         "roles": [LEARNER], "status": "Active"},
        # Listed under a name another LMS user launched with: not theirs, so not sent that one's score.
        {"user_id": "user-not-jan", "name": "Not Jan", "email": "nj@example.org", "ext_user_username": "jan",
         "roles": [LEARNER], "status": "Active"},
    ]
    jan = Browser(platform)
    jan.sign_in(sub="user-jan")
    submit(jan, "add", ADD)
    ivy = tool.token("ivy")  # Ivy hands in by the API, never through the LMS
    handed = tool.submit(ivy, "add", ADD)
    tool.wait(ivy, handed.body["id"])
    graded_scores(jan, "add")
    sync(tool)
    # Full marks, whatever the exercise's points are now (a regrade above may have moved them).
    wait_until("Ivy's score at the platform", lambda: [s["scoreGiven"] == s["scoreMaximum"] > 0
                                                       for s in platform.scores if s["userId"] == "user-ivy"] == [True])
    wait_until("Jan's score at the platform", lambda: any(s["userId"] == "user-jan" for s in platform.scores))
    assert not any(s["userId"] == "user-not-jan" for s in platform.scores)
    roster = {m["user_id"]: m for m in status(tool)["roster"]}
    assert roster["user-ivy"]["student"] == "ivy" and roster["user-not-jan"]["student"] is None


def test_a_learner_cannot_read_the_lti_status_or_force_a_sync(tool: Served, platform: Platform) -> None:
    eve = Browser(platform)
    eve.sign_in(sub="user-eve")
    assert eve.get("/api/lti/status").status_code == 403
    assert eve.session.post(f"{platform.tool_url}/api/lti/sync").status_code == 403
    assert tool.call("GET", "/api/lti/status").status == 401


def test_a_rotated_key_signs_the_next_service_token_and_both_keys_are_published(tool: Served, platform: Platform) -> None:
    before = tool.call("GET", "/lti/jwks").body["keys"]
    rotated = run_cli("serve", "lti", "rotate-key", "--state", tool.state)
    assert rotated.returncode == 0, rotated.stderr
    after = tool.call("GET", "/lti/jwks").body["keys"]
    assert len(after) == 2 and before[0] in after
    new_kid = next(k["kid"] for k in after if k not in before)
    fay = Browser(platform)
    fay.sign_in(sub="user-fay")
    submit(fay, "add", ADD)
    graded_scores(fay, "add")
    wait_until("a score sent after the rotation", lambda: any(s["userId"] == "user-fay" for s in platform.scores))
    assert platform.tokens_issued[-1]["kid"] == new_kid
    assert all("BEGIN" not in json.dumps(k) and "d" not in k for k in after)  # public halves only


def test_platforms_come_from_a_file_and_bad_ones_are_a_usage_error(tool: Served, tmp_path) -> None:  # type: ignore[no-untyped-def]
    listed = tmp_path / "platforms.json"
    listed.write_text(json.dumps([{"issuer": "https://canvas.instructure.com", "client_id": "10000000000001",
                                   "login_url": "https://sso.canvaslms.com/api/lti/authorize_redirect",
                                   "token_url": "https://sso.canvaslms.com/login/oauth2/token",
                                   "keys_url": "https://sso.canvaslms.com/api/lti/security/jwks",
                                   "deployments": ["189:7f956bcc8f67cd076ae464862ce83596a1bb3293"]}]))
    assert run_cli("serve", "lti", "add-platform", "--state", tool.state, "--file", listed).returncode == 0
    shown = json.loads(run_cli("serve", "lti", "platforms", "--state", tool.state).stdout)
    assert {p["issuer"] for p in shown} >= {"https://canvas.instructure.com"}
    listed.write_text(json.dumps([{"issuer": "x", "client_id": "y", "login_url": "javascript:alert(1)",
                                   "token_url": "t", "keys_url": "k", "deployments": ["1"]}]))
    refused = run_cli("serve", "lti", "add-platform", "--state", tool.state, "--file", listed)
    assert refused.returncode == 2 and "http(s) URL" in refused.stderr
    assert run_cli("serve", "lti", "add-platform", "--state", tool.state, "--issuer", "x").returncode == 2
    assert jwt  # the module's JWTs are real ones: see tests/lti/platform.py


def test_a_score_that_would_reveal_hidden_tests_is_held_until_the_deadline(
        tmp_path_factory, platform: Platform) -> None:  # type: ignore[no-untyped-def]
    from tests.batch.classroom import write_course

    root = tmp_path_factory.mktemp("held")
    served = Served(root, root / "state", write_course(root))
    (root / "grader-course.yaml").write_text("rules:\n  deadline: 2999-01-01T00:00:00Z\n  hidden: after-deadline\n")
    assert run_cli("serve", "lti", "add-platform", "--state", served.state, *platform.registration()).returncode == 0
    served.start("--insecure-cookies", "--workers", "1")
    saved, platform.tool_url = platform.tool_url, served.url
    try:
        gil = Browser(platform)
        gil.sign_in(sub="user-gil")
        submit(gil, "add", ADD)
        graded_scores(gil, "add")
        synced = sync(served)
        assert [t["held"] for t in synced["sent"] if t["user_id"] == "user-gil"]
        assert not any(s["userId"] == "user-gil" for s in platform.scores)
    finally:
        platform.tool_url = saved
        served.stop()
