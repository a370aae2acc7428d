"""`grader serve` under load, beside `grader batch` on the same files and workers, over loopback only.

    .venv/bin/python benchmarks/serve.py [--students 200] [--workers N] [--clients 50] [--idle 10]

The class: tests/batch/classroom.py's (add, shout, guess), each student's files made distinct: correct,
wrong, looping (a timeout), crashing, a segfault, a syntax error, binary bytes, markup and terminal escapes,
some missing. Expected values are computed before any clock starts (a first small batch).

- batch: `grader batch` on the class folder, wall time; its throughput is hand-ins / wall.
- idle: one correct hand-in at a time on an idle server, upload to report (the client's GET ?wait=30
  answers when the submission changes),
  beside `grader check` of the same file (the whole command, as a student runs it).
- load: every hand-in of the class sent by --clients concurrent clients, each sending its next when its
  last is graded (GET ?wait=30, as `grader submit` waits). Throughput = hand-ins / (last report - first upload). The ideal
  latency under that load is what the queue implies: clients x (batch wall / hand-ins), each client's
  hand-in waits behind one of every other client's. Every answer is counted: none may be lost or 5xx.
  The server's resident memory is sampled every 0.5 s.
- The server's verdicts are compared with the batch's, hand-in by hand-in.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.server.client import multipart  # noqa: E402
from grader.server.state import State  # noqa: E402
from grader.server.tokens import issue  # noqa: E402
from tests.batch.classroom import SUFFIX, write_class, write_course  # noqa: E402


def grader(*args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          check=False, **kwargs)  # type: ignore[call-overload]


def call(url: str, token: str, body: bytes | None = None, content_type: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, method="POST" if body else "GET",
                                     headers={"Authorization": f"Bearer {token}"})
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, {}


def graded(base: str, token: str, exercise: str, name: str, data: bytes, poll: float,
           answers: list[int]) -> tuple[float, str]:
    """Upload, then poll until graded: (seconds from upload to report, verdict)."""
    body, kind = multipart({"exercise": exercise}, "file", name, data)
    started = time.perf_counter()
    status, sent = call(f"{base}/api/submissions", token, body, kind)
    answers.append(status)
    if status != 202:
        return time.perf_counter() - started, f"refused {status}"
    while True:
        status, found = call(f"{base}/api/submissions/{sent['id']}?wait=30", token)
        answers.append(status)
        if found.get("status") in ("done", "error"):
            return time.perf_counter() - started, found["report"]["verdict"]
        if poll:
            time.sleep(poll)


def rss_kib(pid: int) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", text)[1])  # type: ignore[index]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--idle", type=int, default=10, help="idle-server hand-ins to time")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="serve-bench-"))
    os.environ["GRADER_CACHE"] = str(root / "cache")
    exercises = write_course(root)
    write_class(root / "warm", 4)
    grader("batch", root / "warm", "--exercises", exercises, "--out", root / "warm-out", "--workers", 1)
    chosen = write_class(root / "class", args.students)
    hand_ins = [(student, exercise, path.read_bytes()) for student in chosen for exercise in chosen[student]
                if (path := root / "class" / student / f"{exercise}{SUFFIX[exercise]}").is_file()]

    started = time.perf_counter()
    batch = grader("batch", root / "class", "--exercises", exercises, "--out", root / "out", "--workers", args.workers)
    batch_wall = time.perf_counter() - started
    assert batch.returncode in (0, 1), batch.stderr
    book = json.loads((root / "out" / "grades.json").read_text())
    batch_verdicts = {(s["student"], e): cell["verdict"] for s in book["students"] for e, cell in s["exercises"].items()}

    state = State(root / "state")
    tokens = {student: issue(state, student) for student in chosen}
    idle_token = issue(state, "idle-student")
    state.close()
    server = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--state", root / "state", "--exercises",
                               exercises, "--port", "0", "--workers", str(args.workers)],
                              stdout=subprocess.PIPE, stderr=open(root / "serve.stderr", "w"), text=True)
    try:
        base = re.search(r"on (http://\S+) ", server.stdout.readline())[1]  # type: ignore[union-attr,index]
        correct = b"def add(a, b):\n    return a + b\n"
        idle, checks, answers = [], [], []
        for number in range(args.idle):
            data = f"# idle {number}\n".encode() + correct
            idle.append(graded(base, idle_token, "add", "add.py", data, 0, answers)[0])
            (root / "add.py").write_bytes(data)
            began = time.perf_counter()
            grader("check", "add", root / "add.py", "--exercises", exercises)
            checks.append(time.perf_counter() - began)

        memory: list[int] = []
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                memory.append(rss_kib(server.pid))
                time.sleep(0.5)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        work = list(hand_ins)
        lock = threading.Lock()
        latencies: list[float] = []
        verdicts: dict[tuple[str, str], str] = {}

        def client() -> None:
            while True:
                with lock:
                    if not work:
                        return
                    student, exercise, data = work.pop(0)
                took, verdict = graded(base, tokens[student], exercise, f"{exercise}{SUFFIX[exercise]}", data, 0,
                                       answers)
                with lock:
                    latencies.append(took)
                    verdicts[(student, exercise)] = verdict

        began = time.perf_counter()
        clients = [threading.Thread(target=client) for _ in range(args.clients)]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
        load_wall = time.perf_counter() - began
        done.set()
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)

    count = len(hand_ins)
    per_hand_in = batch_wall / count
    ideal = min(args.clients, count) * per_hand_in
    differ = sorted(k for k, v in verdicts.items() if batch_verdicts.get(k) != v)
    bad = [status for status in answers if status >= 500 or status not in (200, 202)]
    print(f"class: {args.students} students x 3 exercises, {count} hand-ins; {args.workers} workers; "
          f"{args.clients} clients")
    print(f"batch: {batch_wall:.1f} s wall, {count / batch_wall:.2f} hand-ins/s")
    print(f"serve: {load_wall:.1f} s wall, {count / load_wall:.2f} hand-ins/s = "
          f"{100 * batch_wall / load_wall:.0f} % of the batch's throughput (target >= 90 %)")
    print(f"idle: upload to report p50 {statistics.median(idle):.3f} s; grader check p50 "
          f"{statistics.median(checks):.3f} s (target: <= check + 0.1 s)")
    print(f"load: upload to report p50 {statistics.median(latencies):.2f} s, p95 {percentile(latencies, .95):.2f} s; "
          f"the queue implies {ideal:.2f} s: p95 = {percentile(latencies, .95) / ideal:.2f} x (target <= 1.2)")
    print(f"answers: {len(answers)}, not 200/202: {len(bad)}; reports {len(verdicts)} of {count}")
    print(f"server memory (RSS): first {memory[0] / 1024:.0f} MiB, max {max(memory) / 1024:.0f} MiB, last "
          f"{memory[-1] / 1024:.0f} MiB over {len(memory)} samples")
    print(f"verdicts that differ from the batch's: {len(differ)} {differ[:5]}")
    print(f"command: {' '.join(sys.argv)}")


if __name__ == "__main__":
    main()
