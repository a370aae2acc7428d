"""`grader serve` under load, beside `grader batch` on the same files and workers, over loopback only.

    .venv/bin/python benchmarks/serve.py [--students 200] [--workers N] [--clients 50] [--idle 10]

The class: tests/batch/classroom.py's (add, shout, guess), each student's files made distinct: correct,
wrong, looping (a timeout), crashing, a segfault, a syntax error, binary bytes, markup and terminal escapes,
some missing. Expected values are computed before any clock starts (a first small batch).

- batch: `grader batch` on the class folder, before the server's load and after it (the machine may be
  shared: their mean is the figure), wall time; its throughput is hand-ins / wall. Beside it, the work its
  workers did (the sum of its gradings' times) and the server's: a machine that got slower shows there.
- idle: one correct hand-in at a time on an idle server, upload to report (the client's GET ?wait=30
  answers when the submission changes),
  beside `grader check` of the same file (the whole command, as a student runs it).
- load: every hand-in of the class sent by --clients concurrent clients, each sending its next when its
  last is graded (GET ?wait=30, as `grader submit` waits). Throughput = hand-ins / the load's wall time.
  Latency is judged on the correct hand-ins, against what the queue implies for each: a perfect queue
  over the same workers, from the moment the hand-in was stored (perfect_queue). Every answer is counted:
  none may be lost or 5xx.
- memory: the server's resident memory, sampled every 0.25 s under load; flat when the median of the
  load's second half is within 5 % of the first half's (a leak grows with every hand-in).
- The server's verdicts are compared with the batch's, hand-in by hand-in.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.server.client import multipart  # noqa: E402
from grader.server.state import State, Submission  # noqa: E402
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


@dataclass
class Sent:
    """One hand-in of the load, on the client's clock (time.time(), the server's clock too)."""

    student: str
    exercise: str
    uploaded: float  # the client starts sending it
    reported: float = 0.0  # the client has its report
    number: int = 0  # the server's id; 0: refused
    verdict: str = ""

    @property
    def took(self) -> float:
        return self.reported - self.uploaded


def graded(base: str, token: str, exercise: str, name: str, data: bytes, answers: list[int],
           student: str = "") -> Sent:
    """Upload, then wait until graded (GET ?wait=30, answered when the submission changes)."""
    body, kind = multipart({"exercise": exercise}, "file", name, data)
    sent = Sent(student, exercise, time.time())
    status, accepted = call(f"{base}/api/submissions", token, body, kind)
    answers.append(status)
    if status != 202:
        sent.reported, sent.verdict = time.time(), f"refused {status}"
        return sent
    sent.number = accepted["id"]
    while True:
        status, found = call(f"{base}/api/submissions/{sent.number}?wait=30", token)
        answers.append(status)
        if found.get("status") in ("done", "error"):
            sent.reported, sent.verdict = time.time(), found["report"]["verdict"]
            return sent


def rss_kib(pid: int) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", text)[1])  # type: ignore[index]


def cpu_seconds(pid: int) -> float:
    """The process's CPU so far, its threads' included (user + system, /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def perfect_queue(rows: list[Submission], workers: int) -> dict[int, float]:
    """What a perfect queue over `workers` workers gives each submission, from the moment it was stored:
    the service still ahead of it then (what was left of those on a worker, the whole of those queued
    before it), taken first come, first served, each by the first worker free with no time lost between
    two, then its own service. A submission graded without a worker (identical to one graded, unreadable)
    counts 0 s of service; the workers' times are the server's own (Submission.grading_seconds)."""
    done = sorted((row for row in rows if row.graded_at is not None), key=lambda row: row.id)
    service = {row.id: row.grading_seconds or 0.0 for row in done}
    began = {row.id: row.graded_at - service[row.id] for row in done}  # type: ignore[operator]
    ideal = {}
    for position, row in enumerate(done):
        now = row.submitted_at
        ahead = done[:position]
        left = [a.graded_at - now for a in ahead if began[a.id] <= now < a.graded_at]  # type: ignore[operator]
        free = sorted(left)[:workers] + [0.0] * max(0, workers - len(left))
        heapq.heapify(free)
        for other in [*sorted(left)[workers:], *(service[a.id] for a in ahead if began[a.id] > now)]:
            heapq.heappush(free, heapq.heappop(free) + other)
        ideal[row.id] = heapq.heappop(free) + service[row.id]
    return ideal


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--idle", type=int, default=10, help="idle-server hand-ins to time")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (state, outputs)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="serve-bench-"))
    try:
        return run(root, args)
    finally:
        if args.keep:
            print(f"kept: {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


def run(root: Path, args: argparse.Namespace) -> int:
    os.environ["GRADER_CACHE"] = str(root / "cache")
    exercises = write_course(root)
    write_class(root / "warm", 4)
    grader("batch", root / "warm", "--exercises", exercises, "--out", root / "warm-out", "--workers", 1)
    chosen = write_class(root / "class", args.students)
    hand_ins = [(student, exercise, path.read_bytes()) for student in chosen for exercise in chosen[student]
                if (path := root / "class" / student / f"{exercise}{SUFFIX[exercise]}").is_file()]
    correct_files = {(s, e) for s, variants in chosen.items() for e, v in variants.items() if v.verdict == "passed"}

    before = batch(root, exercises, "out", args.workers)
    book = json.loads((root / "out" / "grades.json").read_text())
    batch_verdicts = {(s["student"], e): cell["verdict"] for s in book["students"]
                      for e, cell in s["exercises"].items()}

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
            idle.append(graded(base, idle_token, "add", "add.py", data, answers).took)
            (root / "add.py").write_bytes(data)
            began = time.perf_counter()
            grader("check", "add", root / "add.py", "--exercises", exercises)
            checks.append(time.perf_counter() - began)

        memory: list[tuple[float, int]] = []  # (time, RSS KiB) during the load
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                memory.append((time.monotonic(), rss_kib(server.pid)))
                time.sleep(0.25)

        work = list(hand_ins)
        lock = threading.Lock()
        load: list[Sent] = []

        def client() -> None:
            while True:
                with lock:
                    if not work:
                        return
                    student, exercise, data = work.pop(0)
                sent = graded(base, tokens[student], exercise, f"{exercise}{SUFFIX[exercise]}", data, answers,
                              student)
                with lock:
                    load.append(sent)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        cpu_before = cpu_seconds(server.pid), time.process_time()
        began = time.perf_counter()
        clients = [threading.Thread(target=client) for _ in range(args.clients)]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
        load_wall = time.perf_counter() - began
        server_cpu, clients_cpu = cpu_seconds(server.pid) - cpu_before[0], time.process_time() - cpu_before[1]
        done.set()
        sampler.join()
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
    after = batch(root, exercises, "out-after", args.workers)  # the machine may have changed meanwhile
    batch_wall, batch_work = (before[0] + after[0]) / 2, (before[1] + after[1]) / 2

    # What the server recorded of each: when it was stored, handed to a worker, graded; how long grading took.
    state = State(root / "state")
    rows = {s.id: s for s in state.list()}
    state.close()
    ideals = perfect_queue(list(rows.values()), args.workers)
    (root / "load.json").write_text(json.dumps([vars(sent) | {"ideal": ideals.get(sent.number)} for sent in load]))
    right = [sent for sent in load if sent.number in ideals and (sent.student, sent.exercise) in correct_files]
    real, ideal = [sent.took for sent in right], [ideals[sent.number] for sent in right]
    excess = [sent.took - ideals[sent.number] for sent in right]
    service = [row.grading_seconds or 0.0 for row in rows.values()]

    count = len(hand_ins)
    verdicts = {(sent.student, sent.exercise): sent.verdict for sent in load}
    differ = sorted(k for k, v in verdicts.items() if batch_verdicts.get(k) != v)
    bad = [status for status in answers if status not in (200, 202)]
    throughput = batch_wall / load_wall
    p95 = percentile(real, .95) / percentile(ideal, .95)
    print(f"class: {args.students} students x 3 exercises, {count} hand-ins; {args.workers} workers; "
          f"{args.clients} clients; load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"batch: {batch_wall:.1f} s wall ({before[0]:.1f} s before the server's load, {after[0]:.1f} s after), "
          f"{count / batch_wall:.2f} hand-ins/s; its workers graded {batch_work:.1f} s of work: "
          f"{batch_work / batch_wall / args.workers:.0%} busy")
    print(f"serve: {load_wall:.1f} s wall, {count / load_wall:.2f} hand-ins/s = {100 * throughput:.0f} % of the "
          f"batch's throughput (target >= 90 %: {met(throughput >= 0.9)})")
    print(f"idle: upload to report p50 {statistics.median(idle):.3f} s; grader check p50 "
          f"{statistics.median(checks):.3f} s (target <= check + 0.1 s: "
          f"{met(statistics.median(idle) <= statistics.median(checks) + 0.1)})")
    print(f"load, {len(right)} correct hand-ins: upload to report p50 {statistics.median(real):.2f} s, p95 "
          f"{percentile(real, .95):.2f} s; a perfect queue over the same workers p50 {statistics.median(ideal):.2f} s, "
          f"p95 {percentile(ideal, .95):.2f} s: p95 = {p95:.2f} x (target <= 1.2: {met(p95 <= 1.2)})")
    print(f"  each beyond its own ideal: p50 {statistics.median(excess):+.3f} s, p95 {percentile(excess, .95):+.3f} s")
    print(f"  where the time goes (correct, mean s): {breakdown(right, rows, ideals)}")
    print(f"  the workers graded {sum(service):.1f} s of work in {load_wall:.1f} s: "
          f"{sum(service) / load_wall / args.workers:.0%} busy")
    print(f"  CPU under load, beside the workers': the server {server_cpu:.1f} s ({1000 * server_cpu / count:.1f} ms "
          f"a hand-in), this benchmark's clients {clients_cpu:.1f} s, on {len(os.sched_getaffinity(0))} cores")
    print(f"answers: {len(answers)}, not 200/202: {len(bad)}; reports {len(verdicts)} of {count} "
          f"(target: every one, no 5xx: {met(not bad and len(verdicts) == count)})")
    print(f"server memory (RSS) under load: {memory_figure(memory)}")
    print(f"verdicts that differ from the batch's: {len(differ)} {differ[:5]}")
    print(f"command: {' '.join(sys.argv)}")
    return 1 if bad or len(verdicts) != count else 0


def batch(root: Path, exercises: Path, out: str, workers: int) -> tuple[float, float]:
    """`grader batch` of the class into root/out: (its wall time, the sum of its gradings' wall times)."""
    started = time.perf_counter()
    result = grader("batch", root / "class", "--exercises", exercises, "--out", root / out, "--workers", workers)
    wall = time.perf_counter() - started
    assert result.returncode in (0, 1), result.stderr
    with sqlite3.connect(root / out / "results.sqlite") as db:
        work = db.execute("SELECT SUM(wall_seconds) FROM gradings").fetchone()[0]
    return wall, work


def met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def memory_figure(samples: list[tuple[float, int]]) -> str:
    """Flat: the median of the load's second half within 5 % of the first half's."""
    if len(samples) < 8:
        return f"{len(samples)} samples, too few to judge"
    middle = (samples[0][0] + samples[-1][0]) / 2
    first = statistics.median(kib for at, kib in samples if at <= middle)
    second = statistics.median(kib for at, kib in samples if at > middle)
    growth = second / first - 1
    return (f"median {first / 1024:.1f} MiB in the first half, {second / 1024:.1f} MiB in the second "
            f"({100 * growth:+.1f} %; target flat, within 5 %: {met(growth <= 0.05)}); first sample "
            f"{samples[0][1] / 1024:.0f} MiB, max {max(kib for _, kib in samples) / 1024:.0f} MiB, "
            f"{len(samples)} samples")


def breakdown(sent: list[Sent], rows: dict[int, Submission], ideals: dict[int, float]) -> str:
    """The mean upload-to-report time of these hand-ins, phase by phase, beside a perfect queue's wait."""
    parts: dict[str, list[float]] = {"upload": [], "queued": [], "graded": [], "told": [], "perfect queue's wait": []}
    for one in sent:
        row = rows[one.number]
        grading = row.grading_seconds or 0.0
        assert row.graded_at is not None
        parts["upload"].append(row.submitted_at - one.uploaded)  # to the row stored
        parts["queued"].append(row.graded_at - grading - row.submitted_at)  # to a worker starting it
        parts["graded"].append(grading)
        parts["told"].append(one.reported - row.graded_at)  # from the report stored to the client having it
        parts["perfect queue's wait"].append(ideals[one.number] - grading)
    return ", ".join(f"{name} {statistics.fmean(values):.3f}" for name, values in parts.items())


if __name__ == "__main__":
    sys.exit(main())
