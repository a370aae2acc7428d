"""The LTI 1.3 tool against a platform that signs real JWTs with its own RSA key: a launch signs the person
in (no token to copy), roles make staff, deep linking places an exercise, and every forged, expired,
replayed or misaddressed launch is refused with a reason, never a 500."""

from __future__ import annotations

import re
import time

import jwt
import pytest
import requests

from tests.lti.platform import CLAIM, INSTRUCTOR, Browser, Platform, rsa_key
from tests.server.conftest import ADD, WRONG, Served


def submit(browser: Browser, exercise: str, code: str) -> requests.Response:
    page = browser.get(f"/lti/exercises/{exercise}")
    csrf = re.search(r'name="csrf" value="([\w-]+)"', page.text)[1]  # type: ignore[index]
    return browser.session.post(f"{browser.platform.tool_url}/lti/exercises/{exercise}", allow_redirects=False,
                                data={"csrf": csrf, "exercise": exercise}, files={"file": (f"{exercise}.py", code)})


def graded_scores(browser: Browser, exercise: str) -> list[str]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        page = browser.get(f"/lti/exercises/{exercise}").text
        statuses = re.findall(r'<td class="status">(\w+)</td>', page)
        if statuses and all(s in ("done", "error") for s in statuses):
            return re.findall(r'<td class="score">([^<]*)</td>', page)
        time.sleep(0.3)
    raise AssertionError("not graded in time")


def test_a_learners_launch_signs_them_in_and_opens_the_exercise_with_no_token_shown(tool: Served, platform: Platform) -> None:
    ada = Browser(platform)
    answer = ada.sign_in()
    assert answer.status_code == 303 and answer.headers["Location"] == "/lti/exercises/add"
    page = ada.get("/lti/exercises/add")
    assert page.status_code == 200 and "Signed in as ada." in page.text
    assert "gt_" not in page.text and "gt_" not in answer.text  # the session's token never reaches a page
    assert "frame-ancestors 'self' " + platform.issuer in page.headers["Content-Security-Policy"]
    assert submit(ada, "add", WRONG).status_code == 303
    assert submit(ada, "add", ADD).status_code == 303
    assert graded_scores(ada, "add") == ["4.0 / 4.0", "0.0 / 4.0"]  # newest first
    assert ada.get("/me").status_code == 200  # the server's own pages know the same session


def test_a_form_without_the_sessions_csrf_value_is_refused(tool: Served, platform: Platform) -> None:
    ada = Browser(platform)
    ada.sign_in(sub="user-mallory")
    forged = ada.session.post(f"{platform.tool_url}/lti/exercises/add", data={"csrf": "guess", "exercise": "add"},
                              files={"file": ("add.py", ADD)}, allow_redirects=False)
    assert forged.status_code == 403
    assert tool.call("GET", "/api/submissions", tool.token("mallory")).body["submissions"] == []


def test_an_instructor_is_staff_and_a_learner_is_not(tool: Served, platform: Platform) -> None:
    teacher, ada = Browser(platform), Browser(platform)
    teacher.sign_in(sub="user-grace", roles=(INSTRUCTOR,))
    ada.sign_in()
    assert teacher.get("/api/gradebook").status_code == 200
    assert ada.get("/api/gradebook").status_code == 403


def test_deep_linking_returns_the_picked_exercise_with_its_line_item_signed_by_the_tool(tool: Served, platform: Platform) -> None:
    teacher = Browser(platform)
    state, nonce = teacher.begin()
    page = teacher.launch(state, platform.sign(platform.claims(nonce, sub="user-grace", roles=(INSTRUCTOR,),
                                                               message="LtiDeepLinkingRequest")))
    assert page.status_code == 200 and "Add an exercise" in page.text
    launch_id = re.search(r'name="launch" value="([\w-]+)"', page.text)[1]  # type: ignore[index]
    csrf = re.search(r'name="csrf" value="([\w-]+)"', page.text)[1]  # type: ignore[index]
    picked = teacher.session.post(f"{platform.tool_url}/lti/deep-link",
                                  data={"csrf": csrf, "launch": launch_id, "exercise": "add"})
    assert picked.status_code == 200
    assert f'action="{platform.issuer}/deep-link-return"' in picked.text
    token = re.search(r'name="JWT" value="([^"]+)"', picked.text)[1]  # type: ignore[index]
    keys = requests.get(f"{platform.tool_url}/lti/jwks", timeout=10).json()["keys"]
    kid = jwt.get_unverified_header(token)["kid"]
    claims = jwt.decode(token, jwt.PyJWK(next(k for k in keys if k["kid"] == kid)).key, algorithms=["RS256"],
                        audience=platform.issuer)
    (item,) = claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["custom"] == {"exercise": "add"} and item["url"] == f"{platform.tool_url}/lti/launch"
    assert item["lineItem"]["scoreMaximum"] == 4 and item["lineItem"]["resourceId"] == "add"
    assert claims["iss"] == platform.client_id and claims[f"{CLAIM}deployment_id"] == platform.deployment


def test_a_learner_cannot_use_deep_linking(tool: Served, platform: Platform) -> None:
    ada = Browser(platform)
    state, nonce = ada.begin()
    answer = ada.launch(state, platform.sign(platform.claims(nonce, message="LtiDeepLinkingRequest")))
    assert answer.status_code == 403 and "only an instructor" in answer.text


# ---------------------------------------------------------------- hostile launches
def _refused(answer: requests.Response, why: str) -> None:
    assert answer.status_code in (400, 403, 404), (answer.status_code, answer.text[:500])
    assert why.lower() in answer.text.lower(), answer.text[:500]
    assert "Traceback" not in answer.text
    assert "grader_session" not in answer.headers.get("set-cookie", "")


def test_a_token_signed_by_another_key_under_the_platforms_kid_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, nonce = browser.begin()
    forger_pem, _ = rsa_key()
    _refused(browser.launch(state, platform.sign(platform.claims(nonce), pem=forger_pem)), "signature")


def test_a_token_under_an_unknown_kid_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, nonce = browser.begin()
    _refused(browser.launch(state, platform.sign(platform.claims(nonce), kid="someone-else")), "public key")


def test_an_expired_token_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, nonce = browser.begin()
    old = int(time.time()) - 7200
    _refused(browser.launch(state, platform.sign(platform.claims(nonce, exp=old, iat=old - 60))), "expired")


def test_a_token_without_an_expiry_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, nonce = browser.begin()
    _refused(browser.launch(state, platform.sign(platform.claims(nonce, exp=None))), "exp")


def test_a_replayed_launch_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, nonce = browser.begin()
    token = platform.sign(platform.claims(nonce))
    assert browser.launch(state, token).status_code == 303
    _refused(browser.launch(state, token), "state")


def test_a_nonce_used_once_is_refused_under_a_new_state(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, nonce = browser.begin()
    assert browser.launch(state, platform.sign(platform.claims(nonce))).status_code == 303
    state2, _ = browser.begin()
    _refused(browser.launch(state2, platform.sign(platform.claims(nonce))), "nonce")


def test_a_nonce_the_tool_never_issued_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, _ = browser.begin()
    _refused(browser.launch(state, platform.sign(platform.claims("made-up-nonce"))), "nonce")


def test_a_state_from_another_browsers_login_is_refused(tool: Served, platform: Platform) -> None:
    victim, attacker = Browser(platform), Browser(platform)
    state, nonce = attacker.begin()
    _refused(victim.launch(state, platform.sign(platform.claims(nonce))), "state")


def test_an_unknown_deployment_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, nonce = browser.begin()
    claims = platform.claims(nonce, **{f"{CLAIM}deployment_id": "deployment-of-another-school"})
    _refused(browser.launch(state, platform.sign(claims)), "deployment")


def test_a_token_for_another_audience_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, nonce = browser.begin()
    _refused(browser.launch(state, platform.sign(platform.claims(nonce, aud="another-tool"))), "registration")


def test_a_token_for_several_audiences_not_naming_us_as_azp_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, nonce = browser.begin()
    claims = platform.claims(nonce, aud=[platform.client_id, "another-tool"], azp="another-tool")
    _refused(browser.launch(state, platform.sign(claims)), "azp")


def test_a_token_from_an_unregistered_issuer_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, nonce = browser.begin()
    _refused(browser.launch(state, platform.sign(platform.claims(nonce, iss="https://evil.example"))), "registration")


@pytest.mark.parametrize("token", ["", "not.a.jwt", "a.b", "e30.e30.", "x" * 5000])
def test_garbage_instead_of_a_token_is_refused_without_a_500(tool: Served, platform: Platform, token: str) -> None:
    browser = Browser(platform)
    state, _ = browser.begin()
    answer = browser.launch(state, token)
    assert answer.status_code == 403 and "Traceback" not in answer.text


def test_an_unsigned_token_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    state, nonce = browser.begin()
    token = jwt.encode(platform.claims(nonce), None, algorithm="none", headers={"kid": platform.jwk["kid"]})
    answer = browser.launch(state, token)
    assert answer.status_code == 403 and "Traceback" not in answer.text


def test_a_login_from_an_unregistered_issuer_or_for_another_target_is_refused(tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    unknown = browser.session.post(f"{platform.tool_url}/lti/login", allow_redirects=False, data={
        "iss": "https://evil.example", "login_hint": "x", "target_link_uri": f"{platform.tool_url}/lti/launch"})
    assert unknown.status_code == 400 and "registration" in unknown.text
    elsewhere = browser.session.post(f"{platform.tool_url}/lti/login", allow_redirects=False, data={
        "iss": platform.issuer, "login_hint": "x", "client_id": platform.client_id,
        "target_link_uri": "https://evil.example/lti/launch"})
    assert elsewhere.status_code == 400 and "not this server" in elsewhere.text


def test_a_forged_or_unknown_deep_linking_launch_id_is_refused(tool: Served, platform: Platform) -> None:
    teacher = Browser(platform)
    teacher.sign_in(sub="user-grace", roles=(INSTRUCTOR,))
    page = teacher.get("/lti/exercises/add")
    csrf = re.search(r'name="csrf" value="([\w-]+)"', page.text)[1]  # type: ignore[index]
    for launch_id in ("lti1p3-launch-00000000-0000-0000-0000-000000000000", "", "x" * 3000):
        answer = teacher.session.post(f"{platform.tool_url}/lti/deep-link",
                                      data={"csrf": csrf, "launch": launch_id, "exercise": "add"})
        assert answer.status_code == 403 and "expired or is unknown" in answer.text


def test_over_https_a_learners_session_works_framed_and_a_staff_session_stays_same_site(
        tmp_path_factory: pytest.TempPathFactory, platform: Platform) -> None:
    from tests.batch.classroom import write_course
    from tests.conftest import run_cli

    root = tmp_path_factory.mktemp("secure")
    served = Served(root, root / "state", write_course(root))
    assert run_cli("serve", "lti", "add-platform", "--state", served.state, *platform.registration()).returncode == 0
    served.start("--workers", "1")  # Secure cookies, as behind an HTTPS proxy
    saved, platform.tool_url = platform.tool_url, served.url
    try:
        def session_cookie(**claims: object) -> str:
            browser = Browser(platform)
            state, nonce = browser.begin()
            # The state cookie is Secure: an HTTP client keeps it but does not send it; send it as a browser
            # behind HTTPS would.
            jar = "; ".join(f"{c.name}={c.value}" for c in browser.session.cookies)
            answer = requests.post(f"{served.url}/lti/launch", allow_redirects=False, headers={"Cookie": jar},
                                   data={"state": state, "id_token": platform.sign(platform.claims(nonce, **claims))})
            assert answer.status_code == 303, answer.text
            return next(c for c in answer.raw.headers.getlist("set-cookie") if c.startswith("grader_session="))

        learner = session_cookie(sub="user-hal").lower()
        assert "samesite=none" in learner and "secure" in learner and "httponly" in learner
        staff = session_cookie(sub="user-ida", roles=(INSTRUCTOR,)).lower()
        assert "samesite=lax" in staff and "secure" in staff
    finally:
        platform.tool_url = saved
        served.stop()


def test_a_second_launch_in_the_same_browser_keeps_its_session_and_another_person_gets_their_own(
        tool: Served, platform: Platform) -> None:
    browser = Browser(platform)
    browser.sign_in(sub="user-jo")
    first = browser.session.cookies.get("grader_session")
    browser.sign_in(sub="user-jo")
    assert browser.session.cookies.get("grader_session") == first
    browser.sign_in(sub="user-kim")
    assert browser.session.cookies.get("grader_session") != first
    assert "Signed in as kim." in browser.get("/lti/exercises/add").text


@pytest.mark.parametrize("body, content_type", [
    (b'--x\r\nContent-Disposition: form-data; name="state"\r\n\r\nabc', "multipart/form-data; boundary=x"),
    (b"state=a%00b&id_token=x.y.z&iss=a%00", "application/x-www-form-urlencoded"),
    ("&".join(f"f{i}=1" for i in range(100)).encode(), "application/x-www-form-urlencoded"),
    (b"id_token=x.y.z", "application/x-www-form-urlencoded"),
    (b"\xff\xfe=\xff", "application/x-www-form-urlencoded"),
])
def test_a_hostile_form_is_a_4xx_page_saying_why_never_a_traceback(tool: Served, platform: Platform, body: bytes,
                                                                    content_type: str) -> None:
    for path, headers in (("/lti/login", Browser(platform).from_the_lms), ("/lti/launch", Browser(platform).from_the_lms),
                          ("/lti/deep-link", {})):
        answer = requests.post(f"{platform.tool_url}{path}", data=body, allow_redirects=False,
                               headers={"Content-Type": content_type, **headers})
        assert 400 <= answer.status_code < 500, (path, answer.status_code, answer.text[:300])
        assert answer.headers["content-type"].startswith("text/html"), (path, answer.headers["content-type"])
        assert "Traceback" not in answer.text and "<p>" in answer.text
