"""`grader serve` while slow clients hold sockets open: do honest students still get their reports?

    .venv/bin/python benchmarks/slow_clients.py [--slow 1000] [--honest 20] [--rounds 3] [--addresses 1000]
                                                [--open-files 1024]

Loopback only, bounded: one server (tests/batch/classroom.py's course, 2 workers) started with an open-file
limit of --open-files (soft and hard: 1024 is the common default, and a server cannot raise it past the
hard limit), then --rounds rounds of:

- calm: --honest clients at once each upload a correct `add` hand-in (distinct bytes: identical hand-ins are
  graded once) and wait for its report (GET ?wait=30, as `grader submit` does); the time from the upload's
  start to the report in hand is one sample.
- attacked: --slow sockets connect, from --addresses loopback source addresses (127.1.x.y: one attacker
  host per address, or many), and each sends half a request header and nothing more; an attacker process
  keeps them open, opening a new one whenever the server closes one. Then the same honest round, the
  sockets held open throughout. Then they are closed.

Printed: the honest clients' p95 (and median) time to report, calm and attacked, their ratio (the target is
<= 1.5), honest requests that failed, the slow sockets the server closed (deadline, cap, eviction), the
server's open files at the height of the attack, and the size of its log.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from multiprocessing.connection import Connection
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.server.client import multipart  # noqa: E402
from grader.server.state import State  # noqa: E402
from grader.server.tokens import issue  # noqa: E402
from tests.batch.classroom import write_course  # noqa: E402

HALF_HEADER = b"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le"


def call(url: str, token: str, body: bytes | None = None, content_type: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, method="POST" if body else "GET",
                                     headers={"Authorization": f"Bearer {token}"})
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, {}
    except OSError:
        return 0, {}  # refused, reset or timed out


def honest(base: str, token: str, nonce: str, failures: list[str]) -> float | None:
    """Upload to report in hand, seconds; None when the server never gave the report."""
    source = f"def add(a, b):\n    return a + b  # {nonce}\n".encode()
    body, kind = multipart({"exercise": "add"}, "file", "add.py", source)
    started = time.monotonic()
    status, accepted = call(f"{base}/api/submissions", token, body, kind)
    while status != 202:  # a refusal (503 when full) is retried, as a client would; it counts in the time
        failures.append(f"upload {status}")
        if time.monotonic() - started > 300:
            return None
        time.sleep(1)
        status, accepted = call(f"{base}/api/submissions", token, body, kind)
    while time.monotonic() - started < 300:
        status, found = call(f"{base}/api/submissions/{accepted['id']}?wait=30", token)
        if status != 200:
            failures.append(f"wait {status}")
            time.sleep(1)
        elif found.get("status") in ("done", "error"):
            return time.monotonic() - started
    return None


def honest_round(base: str, tokens: list[str], tag: str, failures: list[str]) -> list[float]:
    times: list[float | None] = [None] * len(tokens)

    def one(index: int) -> None:
        times[index] = honest(base, tokens[index], f"{tag}-{index}", failures)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(tokens))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    failures.extend("no report" for t in times if t is None)
    return [t if t is not None else 300.0 for t in times]


class Attacker:
    """Keeps `count` sockets connected, each having sent half a header: one closed by the server is opened
    again at once. Its own thread, one selector, no busy loop."""

    def __init__(self, host: str, port: int, count: int, addresses: int) -> None:
        self.target, self.count, self.addresses = (host, port), count, addresses
        self.selector = selectors.DefaultSelector()
        self.closed_by_server = 0
        self.failed_connects = 0
        self.running = True
        self.opened = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def source(self, index: int) -> str:
        slot = index % self.addresses
        return f"127.1.{slot // 250}.{slot % 250 + 1}"

    def open(self, index: int) -> None:
        sock = socket.socket()
        try:
            sock.bind((self.source(index), 0))
            sock.connect(self.target)
            sock.sendall(HALF_HEADER)
        except OSError:
            self.failed_connects += 1
            sock.close()
            return
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ, index)

    def start(self) -> None:
        for index in range(self.count):
            self.open(index)
        self.thread.start()

    def run(self) -> None:
        while self.running:
            for key, _ in self.selector.select(timeout=0.2):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(4096)
                except OSError:
                    data = b""
                if data:
                    continue  # a 408 or 503 before the close: the close follows
                self.selector.unregister(sock)
                sock.close()
                self.closed_by_server += 1
                if self.running:
                    self.open(key.data)
            if self.failed_connects:  # the server's backlog is full: do not spin on it
                time.sleep(0.05)

    def held(self) -> int:
        return len(self.selector.get_map())

    def stop(self) -> None:
        self.running = False
        self.thread.join()
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()


def attack(host: str, port: int, count: int, addresses: int, pipe: Connection) -> None:
    """The attacker, in a process of its own (as on a host of its own): its work takes no turn from the
    honest clients' threads. Says how many sockets it holds when they are open, and when told to stop."""
    attacker = Attacker(host, port, count, addresses)
    attacker.start()
    pipe.send(attacker.held())
    pipe.recv()
    pipe.send((attacker.held(), attacker.closed_by_server))
    attacker.stop()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", type=int, default=1000, help="slow sockets held open")
    parser.add_argument("--honest", type=int, default=20, help="honest clients, each one hand-in per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--addresses", type=int, default=1000,
                        help="loopback source addresses the slow sockets come from (1: one host)")
    parser.add_argument("--open-files", type=int, default=1024, help="the server's RLIMIT_NOFILE (0: as is)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="grader-slow-"))
    exercises = write_course(folder)
    state_dir = folder / "state"
    state = State(state_dir)
    tokens = [issue(state, f"student{i}") for i in range(args.honest)]
    state.close()

    def limit() -> None:
        if args.open_files:
            resource.setrlimit(resource.RLIMIT_NOFILE, (args.open_files, args.open_files))

    log = folder / "serve.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "grader", "serve", "--state", str(state_dir), "--exercises", str(exercises),
         "--port", "0", "--workers", str(args.workers)],
        stdout=subprocess.PIPE, stderr=log.open("wb"), text=True, preexec_fn=limit)
    assert server.stdout is not None
    line = server.stdout.readline()
    base = line.split(" on ", 1)[1].split()[0]
    host, port = base.removeprefix("http://").split(":")
    failures: list[str] = []
    calm: list[float] = []
    attacked: list[float] = []
    peak_files, closed, held = 0, 0, []
    try:
        honest_round(base, tokens[:1], "warm", failures)  # the expected values, computed once
        for number in range(args.rounds):
            calm += honest_round(base, tokens, f"calm{number}", failures)
            ours, theirs = multiprocessing.get_context("fork").Pipe()
            attacker = multiprocessing.get_context("fork").Process(
                target=attack, args=(host, int(port), args.slow, args.addresses, theirs))
            attacker.start()
            held.append(ours.recv())
            peak_files = max(peak_files, open_files(server.pid))
            attacked += honest_round(base, tokens, f"attacked{number}", failures)
            peak_files = max(peak_files, open_files(server.pid))
            ours.send("stop")
            still, shut = ours.recv()
            held.append(still)
            closed += shut
            attacker.join()
            time.sleep(1)  # the server sees the closes
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    calm_p95, attacked_p95 = percentile(calm, 0.95), percentile(attacked, 0.95)
    print(f"server: open-file limit {args.open_files or 'as is'}, {args.workers} workers; "
          f"{args.slow} slow sockets from {args.addresses} address(es); {args.honest} honest clients x "
          f"{args.rounds} rounds")
    print(f"calm     : p95 {calm_p95:6.2f} s  median {statistics.median(calm):6.2f} s  ({len(calm)} hand-ins)")
    print(f"attacked : p95 {attacked_p95:6.2f} s  median {statistics.median(attacked):6.2f} s  "
          f"({len(attacked)} hand-ins)")
    print(f"ratio p95 attacked / calm: {attacked_p95 / calm_p95:.2f}  (target <= 1.5)")
    print(f"honest requests refused or failed: {len(failures)} {sorted(set(failures))}")
    print(f"slow sockets connected (start, end of each round): {held}; closed by the server: {closed}")
    print(f"server's open files at the height: {peak_files}; its log: {log.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
