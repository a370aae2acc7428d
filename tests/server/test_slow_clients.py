"""Slow and many clients against a real `grader serve` on loopback: sockets that send half a request and
nothing more, hundreds of them, from one address or from many, cannot keep an honest client from its
report, cannot run the server out of open files, and cannot fill its log. No test here waits on a clock of
its own: each waits for the server to act (a close, a line in its log), bounded by a generous timeout."""

from __future__ import annotations

import re
import resource
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

from tests.server.conftest import ADD, Served

HALF_HEADER = b"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le"


def start_with_open_files(served: Served, open_files: int | None, *extra: str) -> None:
    """`served.start`, the server's open-file limit (soft and hard: it cannot raise it) set first."""

    def limit() -> None:
        if open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    served.process = subprocess.Popen(
        [sys.executable, "-m", "grader", "serve", "--state", str(served.state), "--exercises",
         str(served.exercises), "--port", "0", "--workers", "1", *extra],
        stdout=subprocess.PIPE, stderr=served.errors.open("a"), text=True, preexec_fn=limit)
    assert served.process.stdout is not None
    found = re.search(r"on (http://\S+) ", served.process.stdout.readline())
    assert found, served.errors.read_text()
    served.url = found[1]


class SlowSockets:
    """`count` sockets, from the loopback addresses `source(i)` names, each sending HALF_HEADER once it is
    connected and then nothing. Non-blocking: a connect waiting in a full backlog holds up no other."""

    def __init__(self, url: str, count: int, source: Callable[[int], str]) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.selector = selectors.DefaultSelector()
        self.closed_by_server = 0
        self.answers: list[bytes] = []
        for index in range(count):
            sock = socket.socket()
            sock.setblocking(False)
            sock.bind((source(index), 0))
            sock.connect_ex((host, int(port)))
            self.selector.register(sock, selectors.EVENT_WRITE)

    def pump(self, until: Callable[[], bool], timeout: float = 120) -> None:
        """Send the half headers as sockets connect, count the server's closes, until `until()`."""
        deadline = time.monotonic() + timeout
        while not until():
            assert time.monotonic() < deadline, f"not reached in {timeout} s"
            for key, events in self.selector.select(timeout=0.1):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                if events & selectors.EVENT_WRITE:
                    try:
                        sock.send(HALF_HEADER)
                    except OSError:
                        self._closed(sock)
                        continue
                    self.selector.modify(sock, selectors.EVENT_READ)
                else:
                    try:
                        data = sock.recv(4096)
                    except OSError:
                        data = b""
                    if data:
                        self.answers.append(data)
                    else:
                        self._closed(sock)

    def _closed(self, sock: socket.socket) -> None:
        self.selector.unregister(sock)
        sock.close()
        self.closed_by_server += 1

    def close(self) -> None:
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()


def many_addresses(index: int) -> str:
    return f"127.1.{index // 250}.{index % 250 + 1}"


def test_hundreds_of_half_sent_headers_leave_an_honest_client_its_health_and_its_report(served: Served) -> None:
    # 256 open files and 400 slow sockets from 400 hosts: today, files run out and the accept loop floods the log.
    student = served.token("alice")
    start_with_open_files(served, 256)
    slow = SlowSockets(served.url, 400, many_addresses)
    try:
        slow.pump(until=lambda: "over the cap" in served.errors.read_text())
        assert served.call("GET", "/api/health").status == 200
        sent = served.submit(student, "add", ADD)
        assert sent.status == 202, sent.body
        assert served.wait(student, sent.body["id"])["report"]["verdict"] == "passed"
        assert served.process is not None and served.process.poll() is None
    finally:
        slow.close()
    log = served.errors.read_text()
    assert "Too many open files" not in log
    assert len(log) < 4000, log[:4000]


def test_one_address_holds_no_more_connections_than_its_cap_while_another_is_served(served: Served) -> None:
    student = served.token("alice")
    start_with_open_files(served, None, "--max-per-address", "16")
    slow = SlowSockets(served.url, 100, lambda index: "127.1.0.1")
    try:
        slow.pump(until=lambda: slow.closed_by_server >= 100 - 16)
        assert served.call("GET", "/api/health").status == 200
        sent = served.submit(student, "add", ADD)
        assert served.wait(student, sent.body["id"])["status"] == "done"
        slow.pump(until=lambda: True)
        assert slow.closed_by_server == 100 - 16  # the other 16 are still open: the cap, not a deadline
    finally:
        slow.close()
    assert "over the per-address cap" in served.errors.read_text()


def test_a_connection_over_the_cap_is_refused_with_503_only_when_every_one_is_busy(served: Served) -> None:
    student = served.token("alice")
    start_with_open_files(served, None, "--max-per-address", "2", "--read-timeout", "600")
    address = served.url.removeprefix("http://").split(":")
    busy = [socket.create_connection(address, timeout=60) for _ in range(2)]
    try:
        for sock in busy:  # each in the middle of sending its body: a request being read, not a slow head
            sock.sendall(f"POST /api/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {student}\r\n"
                         f"Content-Type: multipart/form-data; boundary=XX\r\nContent-Length: 1000\r\n"
                         f"Expect: 100-continue\r\n\r\n".encode())
            assert sock.recv(4096).startswith(b"HTTP/1.1 100 ")  # the server read the head: the app reads on
            sock.sendall(b"--XX\r\n")
        with socket.create_connection(address, timeout=60) as third:
            answer = receive_all(third)
        assert answer.startswith(b"HTTP/1.1 503 ") and b"Retry-After: " in answer
        busy.pop().close()
        assert served.call("GET", "/api/health").status == 200
    finally:
        for sock in busy:
            sock.close()


def test_a_request_head_that_never_ends_is_answered_408_and_closed(served: Served) -> None:
    start_with_open_files(served, None, "--read-timeout", "0.5")
    with socket.create_connection(served.url.removeprefix("http://").split(":"), timeout=60) as sock:
        sock.sendall(HALF_HEADER)
        assert receive_all(sock).startswith(b"HTTP/1.1 408 ")
    assert "request head did not come in time" in served.errors.read_text()


def test_a_body_that_stops_coming_is_answered_408_and_the_log_has_no_traceback(served: Served) -> None:
    student = served.token("alice")
    start_with_open_files(served, None, "--read-timeout", "0.5")
    with socket.create_connection(served.url.removeprefix("http://").split(":"), timeout=60) as sock:
        sock.sendall(f"POST /api/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {student}\r\n"
                     f"Content-Type: multipart/form-data; boundary=XX\r\nContent-Length: 100000\r\n\r\n"
                     f"--XX\r\nContent-Disposition: form-data; name=\"exercise\"\r\n\r\nadd\r\n--XX\r\n".encode())
        assert receive_all(sock).startswith(b"HTTP/1.1 408 ")
    assert served.call("GET", "/api/health").status == 200
    log = served.errors.read_text()
    assert "body came too slowly" in log
    assert "Traceback" not in log


def test_a_kept_alive_connection_that_starts_a_request_and_stalls_is_closed_too(served: Served) -> None:
    start_with_open_files(served, None, "--read-timeout", "0.5")
    with socket.create_connection(served.url.removeprefix("http://").split(":"), timeout=60) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
        first = b""
        while not first.endswith(b"}"):
            first += sock.recv(4096)
        assert first.startswith(b"HTTP/1.1 200 ")
        sock.sendall(b"GET /api/hea")  # uvicorn's keep-alive timer stops at the first byte; ours does not
        assert receive_all(sock).startswith(b"HTTP/1.1 408 ")


def receive_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(4096):
        data += chunk
    return data


@pytest.mark.parametrize("option", [("--max-per-address", "-1"), ("--max-connections", "0"),
                                    ("--read-timeout", "0"), ("--read-timeout", "nan")])
def test_a_bad_connection_option_is_a_usage_error(served: Served, option: tuple[str, str]) -> None:
    result = subprocess.run([sys.executable, "-m", "grader", "serve", "--state", str(served.state), *option],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert "usage:" in result.stderr


def test_a_message_repeated_ten_thousand_times_reaches_the_log_five_times_then_the_count_left_out() -> None:
    # asyncio's accept loop, out of files, logs once per socket it fails to accept: thousands a second.
    import io
    import logging

    from grader.server.connections import Bounded

    written = io.StringIO()
    log = logging.getLogger("tests.slow_clients.bounded")
    log.propagate = False
    log.addHandler(logging.StreamHandler(written))
    log.addFilter(Bounded(burst=5, window=3600))
    for _ in range(10_000):
        log.error("socket.accept() out of system resource\nsocket: %s", "<fd=12>")
    log.warning("another message")
    assert written.getvalue().count("out of system resource") == 5
    assert "another message" in written.getvalue()
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "again", None, None)
    seen = Bounded(burst=1, window=3600)
    assert seen.filter(record) and not seen.filter(record)
    seen.window = 0
    assert seen.filter(record) and "1 more like it left out" in str(record.msg)  # told in the next window
