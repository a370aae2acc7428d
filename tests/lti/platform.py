"""A platform for the protocol tests: the tool's peer, with a real RSA key, real signed JWTs and a real HTTP
server for its keys, its OAuth2 token endpoint, a line item's scores (AGS) and a course's members (NRPS).
The tool cannot tell it from an LMS: it fetches its keys and sends it scores over HTTP. (The proof against
a real LMS is tests/lti/test_moodle.py.)"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwcrypto.jwk import JWK

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


def rsa_key() -> tuple[str, dict[str, Any]]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    key = JWK.from_pem(pem.encode())
    return pem, {**json.loads(key.export_public()), "kid": key.thumbprint(), "alg": "RS256", "use": "sig"}


@dataclass
class Platform:
    issuer: str = ""
    client_id: str = "tool-client-1"
    deployment: str = "deployment-1"
    tool_url: str = ""
    pem: str = ""
    jwk: dict[str, Any] = field(default_factory=dict)
    scores: list[dict[str, Any]] = field(default_factory=list)
    score_headers: list[dict[str, str]] = field(default_factory=list)
    score_paths: list[str] = field(default_factory=list)
    fail_scores: int = 0  # answer 500 to this many score posts first
    members: list[dict[str, Any]] = field(default_factory=list)
    tokens_issued: list[dict[str, Any]] = field(default_factory=list)
    auth_requests: list[dict[str, str]] = field(default_factory=list)
    page_host: str = "127.0.0.1"  # the host its pages (course page, authorisation) are served under
    launch_as: dict[str, Any] = field(default_factory=dict)  # claims the next authorisation signs (sub, roles...)
    server: ThreadingHTTPServer | None = None

    def start(self) -> "Platform":
        self.pem, self.jwk = rsa_key()
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _html(self, body: str) -> None:
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                if self.path == "/jwks":
                    self._send(200, {"keys": [platform.jwk]})
                elif self.path.startswith("/course"):  # the LMS's course page: the tool in an iframe
                    self._html(platform.course_page(parse_qs(urlsplit(self.path).query).get("user", ["user-ada"])[0]))
                elif self.path.startswith("/start"):  # the frame's first page: the login initiation, posted
                    user = parse_qs(urlsplit(self.path).query).get("user", ["user-ada"])[0]
                    self._html(platform.autopost(f"{platform.tool_url}/lti/login", {
                        "iss": platform.issuer, "login_hint": user, "client_id": platform.client_id,
                        "target_link_uri": f"{platform.tool_url}/lti/launch", "lti_message_hint": "m-1"}))
                elif self.path.startswith("/auth"):  # OIDC authorisation: the signed launch, posted back
                    query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
                    platform.auth_requests.append(query)
                    chosen = {"sub": query["login_hint"], **platform.launch_as}
                    token = platform.sign(platform.claims(query["nonce"], **chosen))
                    self._html(platform.autopost(query["redirect_uri"], {"state": query["state"], "id_token": token}))
                elif self.path.startswith("/members"):
                    if not self._authorised():
                        return
                    self._send(200, {"id": self.path, "context": {"id": "course-1"}, "members": platform.members})
                else:
                    self._send(404, {})

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                if self.path == "/token":
                    self._token(parse_qs(body))
                elif self.path.endswith("/scores"):
                    if not self._authorised():
                        return
                    if platform.fail_scores > 0:
                        platform.fail_scores -= 1
                        self._send(500, {"error": "the gradebook is busy"})
                        return
                    platform.scores.append(json.loads(body))
                    platform.score_headers.append(dict(self.headers))
                    platform.score_paths.append(self.path)
                    self._send(200, {})
                else:
                    self._send(404, {})

            def _token(self, form: dict[str, list[str]]) -> None:
                """As an LMS does: the tool's client assertion checked against the tool's published keys."""
                assertion = form.get("client_assertion", [""])[0]
                keys = requests.get(f"{platform.tool_url}/lti/jwks", timeout=10).json()["keys"]
                kid = jwt.get_unverified_header(assertion).get("kid")
                found = [k for k in keys if k["kid"] == kid]
                if not found:
                    self._send(401, {"error": "unknown kid"})
                    return
                claims = jwt.decode(assertion, jwt.PyJWK(found[0]).key, algorithms=["RS256"],
                                    audience=f"{platform.issuer}/token")
                if not claims["iss"] == claims["sub"] == platform.client_id:
                    self._send(401, {"error": "not the registered client"})
                    return
                platform.tokens_issued.append({"kid": kid, "scope": form.get("scope", [""])[0]})
                self._send(200, {"access_token": "platform-access-token", "token_type": "Bearer", "expires_in": 3600})

            def _authorised(self) -> bool:
                if self.headers.get("Authorization") != "Bearer platform-access-token":
                    self._send(401, {"error": "no token"})
                    return False
                return True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    @property
    def pages(self) -> str:
        """Where a browser reaches its pages: `localhost` is another site than the tool's 127.0.0.1."""
        return f"http://{self.page_host}:{self.server.server_address[1]}" if self.server else ""

    def course_page(self, user: str) -> str:
        return (f"<!doctype html><title>Programming 1</title><h1>Programming 1</h1>"
                f"<iframe id=tool name=tool src=\"/start?user={user}\" width=900 height=600></iframe>")

    @staticmethod
    def autopost(action: str, fields: dict[str, str]) -> str:
        """A form the browser posts at once, as an LMS's pages do (Moodle's launch and auth)."""
        import html

        inputs = "".join(f"<input type=hidden name=\"{html.escape(k)}\" value=\"{html.escape(v)}\">"
                         for k, v in fields.items())
        return (f"<!doctype html><body onload=\"document.forms[0].submit()\">"
                f"<form method=post action=\"{html.escape(action)}\">{inputs}</form></body>")

    def registration(self) -> list[str]:
        """`grader serve lti add-platform`'s options for this platform."""
        return ["--issuer", self.issuer, "--client-id", self.client_id, "--login-url", f"{self.pages}/auth",
                "--token-url", f"{self.issuer}/token", "--keys-url", f"{self.issuer}/jwks",
                "--deployment", self.deployment]

    # ------------------------------------------------------------ messages
    def claims(self, nonce: str, sub: str = "user-ada", roles: tuple[str, ...] = (LEARNER,),
               exercise: str = "add", message: str = "LtiResourceLinkRequest", **changes: Any) -> dict[str, Any]:
        now = int(time.time())
        body: dict[str, Any] = {
            "iss": self.issuer, "aud": self.client_id, "sub": sub, "exp": now + 300, "iat": now, "nonce": nonce,
            "name": "Ada Lovelace", "email": f"{sub}@example.org",
            f"{CLAIM}message_type": message, f"{CLAIM}version": "1.3.0",
            f"{CLAIM}deployment_id": self.deployment, f"{CLAIM}roles": list(roles),
            f"{CLAIM}context": {"id": "course-1", "title": "Programming 1"},
            f"{CLAIM}ext": {"user_username": sub.removeprefix("user-")},
            "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
                "context_memberships_url": f"{self.issuer}/members/course-1", "service_versions": ["2.0"]},
        }
        if message == "LtiResourceLinkRequest":
            body |= {f"{CLAIM}resource_link": {"id": "link-1"}, f"{CLAIM}target_link_uri": f"{self.tool_url}/lti/launch",
                     f"{CLAIM}custom": {"exercise": exercise},
                     "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                         "scope": [SCORE_SCOPE, "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"],
                         "lineitem": f"{self.issuer}/lineitems/1/lineitem"}}
        else:
            body |= {f"{CLAIM}target_link_uri": f"{self.tool_url}/lti/launch",
                     "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": {
                         "deep_link_return_url": f"{self.issuer}/deep-link-return",
                         "accept_types": ["ltiResourceLink"], "accept_presentation_document_targets": ["iframe"]}}
        for key, value in changes.items():
            if value is None:
                body.pop(key, None)
            else:
                body[key] = value
        return body

    def sign(self, body: dict[str, Any], pem: str | None = None, kid: str | None = None) -> str:
        return jwt.encode(body, pem or self.pem, algorithm="RS256", headers={"kid": kid or self.jwk["kid"]})


@dataclass
class Browser:
    """A person's browser at the tool: its own cookies. `begin` is the LMS's login initiation."""

    platform: Platform
    session: requests.Session = field(default_factory=requests.Session)

    def begin(self, **extra: str) -> tuple[str, str]:
        """The tool's redirect to the platform's authorisation: (state, nonce) the tool chose."""
        answer = self.session.post(f"{self.platform.tool_url}/lti/login", allow_redirects=False,
                                   headers=self.from_the_lms, data={
            "iss": self.platform.issuer, "login_hint": "hint-1", "client_id": self.platform.client_id,
            "target_link_uri": f"{self.platform.tool_url}/lti/launch", "lti_message_hint": "m-1", **extra})
        assert answer.status_code == 302, answer.text
        query = parse_qs(urlsplit(answer.headers["Location"]).query)
        assert query["redirect_uri"] == [f"{self.platform.tool_url}/lti/launch"]
        assert query["client_id"] == [self.platform.client_id]
        return query["state"][0], query["nonce"][0]

    def launch(self, state: str, id_token: str) -> requests.Response:
        return self.session.post(f"{self.platform.tool_url}/lti/launch", data={"state": state, "id_token": id_token},
                                 headers=self.from_the_lms, allow_redirects=False)

    @property
    def from_the_lms(self) -> dict[str, str]:
        """What a browser says of a form the LMS's page posts to the tool: another site's origin."""
        return {"Origin": self.platform.issuer, "Sec-Fetch-Site": "cross-site"}

    def sign_in(self, **claims: Any) -> requests.Response:
        state, nonce = self.begin()
        return self.launch(state, self.platform.sign(self.platform.claims(nonce, **claims)))

    def get(self, path: str) -> requests.Response:
        return self.session.get(f"{self.platform.tool_url}{path}", allow_redirects=False)
