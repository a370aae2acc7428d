"""A real `grader serve` process on a free loopback port, with tokens, and a small HTTP client for tests."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from grader.server.client import multipart
from tests.batch.classroom import write_course
from tests.conftest import run_cli

ADD = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"
CSRF = "a-csrf-token-of-the-browser"


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str]


@dataclass
class Served:
    root: Path
    state: Path
    exercises: Path
    url: str = ""
    process: subprocess.Popen[str] | None = None
    tokens: dict[str, str] = field(default_factory=dict)
    extra: tuple[str, ...] = ()

    def token(self, student: str, staff: bool = False, ta: bool = False) -> str:
        """`staff`: an instructor's token; `ta`: a TA's."""
        if student not in self.tokens:
            role = ("--staff",) if staff else ("--ta",) if ta else ()
            result = run_cli("serve", "token", student, "--state", self.state, *role)
            assert result.returncode == 0, result.stderr
            self.tokens[student] = result.stdout.strip()
        return self.tokens[student]

    @property
    def errors(self) -> Path:
        return self.root / "serve.stderr"

    def start(self, *extra: str) -> None:
        self.extra = extra or self.extra
        self.process = subprocess.Popen(
            [sys.executable, "-m", "grader", "serve", "--state", str(self.state), "--exercises", str(self.exercises),
             "--port", "0", *self.extra], stdout=subprocess.PIPE, stderr=self.errors.open("a"), text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"on (http://\S+) ", line)
        assert found, f"no address in {line!r}: {self.errors.read_text()}"
        self.url = found[1]

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind, as a machine that loses power."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()

    def call(self, method: str, path: str, token: str | None = None, body: bytes | None = None,
             content_type: str | None = None, headers: dict[str, str] | None = None, follow: bool = True) -> Answer:
        request = urllib.request.Request(self.url + path, data=body, method=method)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        if content_type:
            request.add_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with (FOLLOWS if follow else NO_REDIRECTS).open(request, timeout=60) as response:
                return Answer(response.status, _decoded(response.read(), response.headers), dict(response.headers))
        except urllib.error.HTTPError as error:
            return Answer(error.code, _decoded(error.read(), error.headers), dict(error.headers))

    def submit(self, token: str, exercise: str, text: str | bytes, name: str | None = None) -> Answer:
        data = text.encode() if isinstance(text, str) else text
        body, content_type = multipart({"exercise": exercise}, "file", name or f"{exercise}.py", data)
        return self.call("POST", "/api/submissions", token, body, content_type)

    def wait(self, token: str, number: int, timeout: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            answer = self.call("GET", f"/api/submissions/{number}?wait=5", token)
            assert answer.status == 200, answer.body
            if answer.body["status"] in ("done", "error"):
                return answer.body  # type: ignore[no-any-return]
            time.sleep(0.1)
        raise AssertionError(f"submission {number} not graded in {timeout} s: {answer.body['status']}")


def signed_in(token: str, csrf: str = CSRF) -> dict[str, str]:
    """The headers of a browser signed in with `token` that loaded a page (its CSRF cookie `csrf`)."""
    return {"Cookie": f"grader_session={token}; grader_csrf={csrf}"}


class _Redirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *_: Any) -> None:  # a 303 is an answer to look at, not to follow
        return None


NO_REDIRECTS = urllib.request.build_opener(_Redirects)
FOLLOWS = urllib.request.build_opener()


def _decoded(data: bytes, headers: Any) -> Any:
    if "json" in headers.get("Content-Type", ""):
        return json.loads(data)
    return data.decode()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    made = Served(tmp_path, tmp_path / "state", write_course(tmp_path))
    yield made
    made.stop()
