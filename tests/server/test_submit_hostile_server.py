"""`grader submit` and `grader login` against a hostile server: a small HTTP server on 127.0.0.1 in the test
answers each request as a test scripts it, and the real CLI runs in a subprocess. The token never leaves the
server's origin, no escape sequence reaches the terminal, a reply of a wrong shape, too big or too slow is a
plain message with exit status 7 (never 4), and plain http to another host is refused before anything is
sent. Nothing here sends traffic anywhere but 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from grader.model import Outcome, Report, Verdict
from grader.outputs.json_report import as_json
from tests.conftest import run_cli

TOKEN = "gt_the-students-own-secret"
NO_LOGIN = {"GRADER_TOKEN": "", "GRADER_SERVER": ""}
ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\u202eevil\x9b"  # OSC title, clear screen, colour, bidi, C1 CSI
Answer = Callable[[BaseHTTPRequestHandler], None]


@dataclass
class Hostile:
    """A server whose answer to each (method, path) is a function the test sets; it records who asked."""

    http: ThreadingHTTPServer
    answers: dict[tuple[str, str], Answer] = field(default_factory=dict)
    seen: list[tuple[str, str, str]] = field(default_factory=list)  # method, path, Authorization

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}"


def _serve() -> Hostile:
    hostile: Hostile

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def answer(self) -> None:
            hostile.seen.append((self.command, self.path, self.headers.get("Authorization", "")))
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            found = hostile.answers.get((self.command, self.path.split("?")[0]))
            if found is None:
                send_json(self, 404, {"error": "no such route"})
            else:
                try:
                    found(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client hung up, as it should on a reply too big or too slow

        do_GET = do_POST = answer

    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    http.daemon_threads = True
    hostile = Hostile(http)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    return hostile


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[Hostile, Hostile]]:
    """The server the student named, and another origin (another loopback port) it may point elsewhere to."""
    pair = (_serve(), _serve())
    yield pair
    for server in pair:
        server.http.shutdown()
        server.http.server_close()


@pytest.fixture
def hostile(servers: tuple[Hostile, Hostile]) -> tuple[Hostile, Hostile]:
    for server in servers:
        server.answers.clear()
        server.seen.clear()
    return servers


def send_json(handler: BaseHTTPRequestHandler, status: int, body: object, headers: dict[str, str] | None = None) -> None:
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


def json_answer(status: int, body: object, headers: dict[str, str] | None = None) -> Answer:
    return lambda handler: send_json(handler, status, body, headers)


def accepted() -> Answer:
    return json_answer(202, {"id": 7, "status": "queued"})


def graded(name: str = "adds", feedback: str = "", stdout: str = "") -> dict[str, object]:
    outcome = Outcome(test=name, verdict=Verdict.WRONG_ANSWER, points=0, max_points=1, feedback=feedback,
                      expected="3", actual="4", stdout=stdout, input="add(1, 2)")
    report = Report("add", "alice/add.py", (outcome,), "sandboxed", False, ())
    return {"id": 7, "status": "done", "report": as_json(report)}


def submit(hostile: Hostile, tmp_path: Path, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "add.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    done = run_cli("submit", "add", path, "--server", hostile.url, "--token", TOKEN, *extra,
                   env={**NO_LOGIN, "XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout, done.stderr


def test_a_redirect_to_another_origin_is_not_followed_and_the_token_never_reaches_it(
        hostile: tuple[Hostile, Hostile], tmp_path: Path) -> None:
    home, elsewhere = hostile
    elsewhere.answers[("GET", "/api/submissions")] = accepted()
    home.answers[("POST", "/api/submissions")] = json_answer(302, {}, {"Location": f"{elsewhere.url}/api/submissions"})
    status, _, stderr = submit(home, tmp_path)
    assert status == 7 and "another address" in stderr and "not followed" in stderr, stderr
    assert elsewhere.seen == []
    assert [auth for _, _, auth in home.seen] == [f"Bearer {TOKEN}"]


def test_a_redirect_within_the_server_is_followed(hostile: tuple[Hostile, Hostile], tmp_path: Path) -> None:
    home, _ = hostile
    home.answers[("POST", "/api/submissions")] = accepted()
    home.answers[("GET", "/api/submissions/7")] = json_answer(302, {}, {"Location": "/api/v1/submissions/7"})
    home.answers[("GET", "/api/v1/submissions/7")] = json_answer(200, graded())
    status, stdout, stderr = submit(home, tmp_path)
    assert status == 1 and "adds" in stdout, stderr
    assert {auth for _, _, auth in home.seen} == {f"Bearer {TOKEN}"}


def test_escape_sequences_in_a_reply_never_reach_the_terminal_and_the_json_stays_exact(
        hostile: tuple[Hostile, Hostile], tmp_path: Path) -> None:
    home, _ = hostile
    home.answers[("POST", "/api/submissions")] = json_answer(202, {"id": 7, "status": f"queued{ESCAPES}"})
    reply = graded(name=f"adds{ESCAPES}", feedback=f"wrong{ESCAPES}", stdout=f"printed{ESCAPES}\n")
    home.answers[("GET", "/api/submissions/7")] = json_answer(200, reply)
    status, stdout, stderr = submit(home, tmp_path)
    assert status == 1, stderr
    for text in (stdout, stderr):
        assert not any(c in text for c in "\x1b\x07\x9b\u202e"), repr(text)
    assert "adds\\x1b]0;owned\\x07" in stdout and "printed\\x1b" in stdout and "queued\\x1b" in stderr

    status, stdout, _ = submit(home, tmp_path, "--format", "json")
    assert status == 1 and "\x1b" not in stdout
    assert json.loads(stdout)["report"]["tests"][0]["name"] == f"adds{ESCAPES}"

    home.answers[("POST", "/api/submissions")] = json_answer(422, {"error": f"no exercise{ESCAPES}"})
    status, _, stderr = submit(home, tmp_path)
    assert status == 2 and "no exercise\\x1b" in stderr and "\x1b" not in stderr


@pytest.mark.parametrize("sent, answer", [
    ("not JSON", lambda h: (h.send_response(202), h.send_header("Content-Length", "3"), h.end_headers(),
                            h.wfile.write(b"{{{"))),
    ("a list", json_answer(202, [1, 2])),
    ("an id that is text", json_answer(202, {"id": "7; rm -rf", "status": "queued"})),
    ("a report that is a number", None),
    ("a test without its verdict", None),
    ("nested past recursion", lambda h: (h.send_response(202), h.send_header("Content-Length", "200000"),
                                         h.end_headers(), h.wfile.write(b"[" * 100000 + b"]" * 100000))),
], ids=lambda value: value if isinstance(value, str) else "")
def test_a_reply_of_the_wrong_shape_is_a_plain_message_and_exit_status_7(
        hostile: tuple[Hostile, Hostile], tmp_path: Path, sent: str, answer: Answer | None) -> None:
    home, _ = hostile
    home.answers[("POST", "/api/submissions")] = answer or accepted()
    if sent == "a report that is a number":
        home.answers[("GET", "/api/submissions/7")] = json_answer(200, {"status": "done", "report": 3})
    elif sent == "a test without its verdict":
        reply = graded()
        del reply["report"]["tests"][0]["verdict"]  # type: ignore[index]
        home.answers[("GET", "/api/submissions/7")] = json_answer(200, reply)
    status, _, stderr = submit(home, tmp_path)
    assert status == 7 and "the server's reply cannot be used" in stderr, stderr


def test_a_huge_reply_is_refused_without_being_read_whole(hostile: tuple[Hostile, Hostile], tmp_path: Path) -> None:
    home, _ = hostile
    written: list[int] = []

    def endless(handler: BaseHTTPRequestHandler) -> None:  # no length said: it streams until the client hangs up
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.end_headers()
        handler.wfile.write(b'{"status": "done", "report": "')
        block = b"x" * (1 << 20)
        for _ in range(300):  # 300 MiB if the client read it all
            handler.wfile.write(block)
            written.append(len(block))

    home.answers[("POST", "/api/submissions")] = json_answer(202, {"id": 7, "status": "queued"},
                                                             {"X-Padding": "1"})
    home.answers[("GET", "/api/submissions/7")] = endless
    status, _, stderr = submit(home, tmp_path)
    assert status == 7 and "longer than 16777216 bytes" in stderr, stderr
    assert sum(written) < 100 << 20  # the client hung up long before the 300 MiB

    def declared(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(300 << 20))
        handler.end_headers()

    home.answers[("GET", "/api/submissions/7")] = declared
    status, _, stderr = submit(home, tmp_path)
    assert status == 7 and f"it is {300 << 20} bytes long" in stderr, stderr


def test_a_reply_that_trickles_is_given_up_when_the_wait_is_spent(hostile: tuple[Hostile, Hostile],
                                                                  tmp_path: Path) -> None:
    home, _ = hostile

    def trickle(handler: BaseHTTPRequestHandler) -> None:  # a byte now and then, for far longer than the wait
        handler.send_response(202)
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        for _ in range(100000):
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.2)

    home.answers[("POST", "/api/submissions")] = trickle
    status, _, stderr = submit(home, tmp_path, "--timeout", "2")
    assert status == 7 and ("still arriving" in stderr or "stopped arriving" in stderr), stderr


def test_plain_http_to_another_host_is_refused_before_anything_is_sent(tmp_path: Path) -> None:
    config = {**NO_LOGIN, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    path = tmp_path / "add.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    # 192.0.2.1 is TEST-NET-1: never routed. The refusal comes before any connection is tried.
    refused = run_cli("submit", "add", path, "--server", "http://192.0.2.1:8000", "--token", TOKEN, env=config)
    assert refused.returncode == 2 and "refusing to send your token" in refused.stderr and "--insecure" in refused.stderr
    login = run_cli("login", "--server", "http://192.0.2.1:8000", "--token", TOKEN, env=config)
    assert login.returncode == 2 and "refusing to send your token" in login.stderr
    assert not (tmp_path / "config" / "grader" / "login.json").exists()

    allowed = run_cli("login", "--server", "http://192.0.2.1:8000", "--token", TOKEN, "--insecure", env=config)
    assert allowed.returncode == 0 and "plain http" in allowed.stderr  # login sends nothing: it stores
    stored = json.loads((tmp_path / "config" / "grader" / "login.json").read_text())
    assert stored == {"server": "http://192.0.2.1:8000", "token": TOKEN, "insecure": True}
    for address in ("ftp://127.0.0.1/", "http://user:secret@127.0.0.1:8000", "http://127.0.0.1\r\n:8000"):
        bad = run_cli("submit", "add", path, "--server", address, "--token", TOKEN, env=config)
        assert bad.returncode == 2 and "secret" not in bad.stderr, (address, bad.stderr)


def test_a_token_pasted_with_its_line_end_is_stored_without_it_and_a_broken_one_is_refused_unechoed(
        hostile: tuple[Hostile, Hostile], tmp_path: Path) -> None:
    home, _ = hostile
    config = {**NO_LOGIN, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    login = run_cli("login", "--server", home.url, "--token", f"{TOKEN}\r", env=config)
    assert login.returncode == 0, login.stderr
    assert json.loads((tmp_path / "config" / "grader" / "login.json").read_text())["token"] == TOKEN

    home.answers[("POST", "/api/submissions")] = accepted()
    home.answers[("GET", "/api/submissions/7")] = json_answer(200, graded())
    path = tmp_path / "add.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    assert run_cli("submit", "add", path, env=config).returncode == 1
    assert {auth for _, _, auth in home.seen} == {f"Bearer {TOKEN}"}

    for broken in ("gt_line\nbreak", "x" * 300):
        refused = run_cli("login", "--server", home.url, "--token", broken, env=config)
        assert refused.returncode == 2 and broken not in refused.stderr and "token" in refused.stderr, refused.stderr
        from_variable = run_cli("submit", "add", path, "--server", home.url, env={**config, "GRADER_TOKEN": broken})
        assert from_variable.returncode == 2 and "internal error" not in from_variable.stderr
