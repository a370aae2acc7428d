"""Canvas cannot run here: its documented LTI 1.3 payloads, recorded in tests/lti/canvas/, are played to the
tool instead. Canvas's launch (its issuer, a deployment id with a colon, its own claims, no login name) signs
the student in and opens the exercise; the score the tool then sends has the shape Canvas's Score API
documents. What this proves and what it cannot is in docs/platforms.md ("LTI 1.3")."""

from __future__ import annotations

import json
import re
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from tests.conftest import run_cli
from tests.lti.platform import Browser, Platform
from tests.lti.test_launch import graded_scores, submit
from tests.server.conftest import ADD, Served

RECORDED = Path(__file__).parent / "canvas"
CANVAS = "https://canvas.instructure.com"


def canvas_launch(platform: Platform, nonce: str) -> dict[str, Any]:
    text = (RECORDED / "launch.json").read_text().replace("PLATFORM", platform.issuer).replace("TOOL", platform.tool_url)
    body = {k: v for k, v in json.loads(text).items() if not k.startswith("_")}
    return body | {"nonce": nonce, "iat": int(time.time()), "exp": int(time.time()) + 3600}


def test_canvass_documented_launch_signs_the_student_in_and_its_score_has_canvass_documented_shape(
        tool: Served, platform: Platform) -> None:
    recorded = canvas_launch(platform, "x")
    registered = run_cli("serve", "lti", "add-platform", "--state", tool.state, "--issuer", CANVAS,
                         "--client-id", recorded["aud"], "--login-url", f"{platform.issuer}/auth",
                         "--token-url", f"{platform.issuer}/token", "--keys-url", f"{platform.issuer}/jwks",
                         "--deployment", recorded["https://purl.imsglobal.org/spec/lti/claim/deployment_id"])
    assert registered.returncode == 0, registered.stderr
    student = Browser(platform)
    # Canvas's login initiation: iss, login_hint, target_link_uri, lti_message_hint, client_id, deployment.
    answer = student.session.post(f"{platform.tool_url}/lti/login", allow_redirects=False, data={
        "iss": CANVAS, "login_hint": "535fa085f22b4655f48cd5a36a9215f64c062838", "client_id": recorded["aud"],
        "target_link_uri": f"{platform.tool_url}/lti/launch", "lti_message_hint": "eyJ0eXAiOiJKV1Qi",
        "lti_deployment_id": recorded["https://purl.imsglobal.org/spec/lti/claim/deployment_id"],
        "canvas_region": "us-east-1"})
    assert answer.status_code == 302
    state = re.search(r"[?&]state=([^&]+)", answer.headers["Location"])[1]  # type: ignore[index]
    nonce = re.search(r"[?&]nonce=([^&]+)", answer.headers["Location"])[1]  # type: ignore[index]
    launched = student.launch(state, platform.sign(canvas_launch(platform, nonce)))
    assert launched.status_code == 303, launched.text
    page = student.get("/lti/exercises/add")
    assert "Signed in as student@example.edu." in page.text  # Canvas sends no login name: the email names them

    platform.client_id = recorded["aud"]  # Canvas's client id signs the tool's service token request
    submit(student, "add", ADD)
    graded_scores(student, "add")
    deadline = time.monotonic() + 60
    while not any(s["userId"] == recorded["sub"] for s in platform.scores) and time.monotonic() < deadline:
        time.sleep(0.2)
    sent = next(s for s in platform.scores if s["userId"] == recorded["sub"])
    documented = json.loads((RECORDED / "score.json").read_text())
    assert set(sent) <= {k for k in documented if not k.startswith("_")}
    for key in ("userId", "scoreGiven", "scoreMaximum", "timestamp", "activityProgress", "gradingProgress"):
        assert type(sent[key]) in (type(documented[key]), float, int), key
    assert sent["activityProgress"] in documented["_activityProgress"]
    assert sent["gradingProgress"] in documented["_gradingProgress"]
    assert datetime.fromisoformat(sent["timestamp"]).utcoffset() is not None and "." in sent["timestamp"]
    assert sent["scoreGiven"] == 4.0 and sent["scoreMaximum"] == 4
    assert platform.score_headers[-1]["Content-Type"] == "application/vnd.ims.lis.v1.score+json"
    assert "/api/lti/courses/1/line_items/7/scores" in platform.score_paths[-1]
