"""The hour before a deadline, shrunk: a class submitting through the HTTP API faster than its workers grade,
beside `grader batch` of the same class on the same workers. Loopback only; bounded in count and time.

    python benchmarks/rush.py --students N --workers W [--servers S --database URL --cluster ADDR]

The class: tests/batch/classroom.py's (add, shout, guess), N students x 3 exercises, a mix of correct,
wrong, looping (a timeout), crashing, hostile (markup, terminal escapes, binary bytes) and missing files; a
third of the hand-ins are preceded by a wrong first try (a resubmission). Arrivals rise toward the deadline:
each one's time in the window is `window x u^(1/8)` (u uniform), so that more than half arrive in its last
tenth; the window is as long as the batch took (a rush: the last tenth brings several times what the workers
can grade in it). Expected values are computed before any clock starts.

- batch: `grader batch` of the final hand-ins on the same workers: its gradings per second, its whole wall
  time counted (start, plan, workers).
- rush: every upload sent at its time (one thread each), then waited for (GET ?wait=30, as `grader submit`
  waits). Throughput: the gradings a worker began from the start of the last tenth and finished by the
  last report, per second of that stretch (the queue is full through most of it: its depth is printed).
  The mixes differ a little (the rush has the wrong first tries too): each side's mean grading is printed.
- upload to report p50/p95/max, beside what a perfect queue over the same workers gives each upload (first
  come first served, no time lost between two, each grading as long as the server measured it):
  p95/ideal is the ratio of the two p95s. The perfect queue is simulated from the uploads as the class sent
  them (its arrivals, not the server's storing of them: a slow upload is the server's to answer for).
- the queue's depth over time and the workers' busy share, sampled from /api/health; each server's resident
  memory over the run (idle before the rush, its peak, at the end).
- lost: uploads acknowledged (202) that never got a report; 5xx: answers >= 500 or no answer at all.

Several servers (--servers S, which needs --database postgresql://...) share the state folder and the
database; uploads go to them in turns. --cluster grades on Dask (tcp://HOST:PORT, or local:N, which this
benchmark starts once, as a scheduler and N workers in processes of their own, for every server and the
batch). The last line reads `rush: throughput/batch R, p95/ideal P, lost L, 5xx E`.

Against a running deployment (deploy/, its docker-compose folder given): the uploads go to its proxy over
TLS (--url, default from the folder's .env; the proxy's certificate trusted from --ca, default its
certs/site.crt: never unchecked), tokens are issued in a server container, the batch runs on the
deployment's Dask scheduler, and the ideal queue has the deployment's workers (as its /api/health counts
them). Its course must be this benchmark's (--write-course DIR writes it: set GRADER_COURSE=DIR in .env).

    python benchmarks/rush.py --students 60 --deployment deploy [--url https://HOST:PORT --ca FILE]
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import ssl
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from rush_deployment import Deployment  # noqa: E402
from rush_figures import (  # noqa: E402
    breakdown,
    count_by,
    depth_figure,
    memory_of,
    met,
    simulated,
    task_bytes,
)
from serve import percentile, perfect_queue, rss_kib  # noqa: E402

from grader.server.client import multipart  # noqa: E402
from grader.server.queue import TIMES_VARIABLE  # noqa: E402
from grader.server.state import State  # noqa: E402
from grader.server.tokens import Role, issue  # noqa: E402
from tests.batch.classroom import SUFFIX, VARIANTS, write_class, write_course  # noqa: E402

WRONG_FIRST = {"add": VARIANTS["add"][1].content, "shout": VARIANTS["shout"][1].content,
               "guess": VARIANTS["guess"][1].content}
TIME_LIMIT = 1800.0  # the whole rush, from its first upload: a stuck server fails the run, never hangs it
TLS: list[ssl.SSLContext] = []  # a deployment's: trusting its proxy's certificate


@dataclass
class Upload:
    at: float  # seconds into the window
    student: str
    exercise: str
    data: bytes
    server: int = 0
    status: int = 0  # the upload's answer; 0: none (refused by the network)
    number: int = 0
    sent: float = 0.0  # time.time() as the upload began
    reported: float = 0.0  # time.time() as its report was had; 0: never
    verdict: str = ""


def grader(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          check=False)


def call(url: str, token: str, answers: list[int], body: bytes | None = None,
         content_type: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, method="POST" if body else "GET",
                                     headers={"Authorization": f"Bearer {token}"})
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=120, context=TLS[0] if TLS else None) as response:
            answers.append(response.status)
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        answers.append(error.code)
        return error.code, {}
    except OSError:
        answers.append(0)
        return 0, {}


def send(upload: Upload, base: str, token: str, answers: list[int], deadline: float) -> None:
    body, kind = multipart({"exercise": upload.exercise}, "file", f"{upload.exercise}{SUFFIX[upload.exercise]}",
                           upload.data)
    upload.sent = time.time()
    upload.status, accepted = call(f"{base}/api/submissions", token, answers, body, kind)
    if upload.status != 202:
        return
    upload.number = accepted["id"]
    while time.monotonic() < deadline:
        status, found = call(f"{base}/api/submissions/{upload.number}?wait=30", token, answers)
        if found.get("status") in ("done", "error"):
            upload.reported, upload.verdict = time.time(), found["report"]["verdict"]
            return
        if status != 200:
            time.sleep(0.5)


def uploads_of(root: Path, students: int, seed: int = 37) -> list[Upload]:
    """The class's final hand-ins, a third of them after a wrong first try, at times rising toward the end."""
    chosen = write_class(root / "class", students)
    rng = random.Random(seed)
    uploads = []
    for student in chosen:
        for exercise in chosen[student]:
            path = root / "class" / student / f"{exercise}{SUFFIX[exercise]}"
            if not path.is_file():
                continue
            times = sorted(rng.random() ** (1 / 8) for _ in range(2))
            if rng.random() < 1 / 3:
                comment = f"# first try of {student}\n".encode() if SUFFIX[exercise] == ".py" else b""
                uploads.append(Upload(times[0], student, exercise, comment + WRONG_FIRST[exercise]))  # type: ignore[operator]
            uploads.append(Upload(times[1], student, exercise, path.read_bytes()))
    return sorted(uploads, key=lambda u: u.at)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)),
                        help="local workers per server (a --cluster has its own)")
    parser.add_argument("--servers", type=int, default=1)
    parser.add_argument("--database", help="postgresql://... shared by the servers (needed for --servers > 1)")
    parser.add_argument("--cluster", help="grade on Dask: tcp://HOST:PORT, or local:N started here once")
    parser.add_argument("--window", type=float, help="seconds from the first upload to the deadline "
                                                     "(default: as long as the batch took)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (state, outputs)")
    parser.add_argument("--deployment", type=Path, metavar="DIR",
                        help="rush a running deployment: its docker-compose folder (deploy/, with its .env)")
    parser.add_argument("--url", help="with --deployment: its proxy (default https://GRADER_PROXY_ADDRESS:PORT)")
    parser.add_argument("--ca", type=Path, help="with --deployment: the certificate to trust for the proxy "
                                                "(default DIR/certs/site.crt)")
    parser.add_argument("--write-course", type=Path, metavar="DIR", help="write this benchmark's course to DIR "
                                                                         "(a deployment's GRADER_COURSE) and end")
    args = parser.parse_args()
    if args.write_course:
        print(write_course(args.write_course))
        return 0
    if (args.url or args.ca) and not args.deployment:
        parser.error("--url and --ca go with --deployment DIR")
    if args.deployment and (args.servers > 1 or args.database):
        parser.error("--deployment has its own servers and database: no --servers nor --database")
    if args.students < 1 or args.workers < 1 or args.servers < 1 or not 1 <= (args.window or 1) <= 3600:
        parser.error("--students, --workers and --servers are at least 1; --window is 1 to 3600 s")
    if args.servers > 1 and not args.database:
        parser.error("--servers > 1 needs --database postgresql://... (several servers share one database)")
    root = Path(tempfile.mkdtemp(prefix="rush-bench-"))
    cluster = None
    try:
        if args.deployment:
            args.deployment = Deployment(args.deployment, args.url, args.ca)
            TLS.append(args.deployment.context)
            args.deployment.check_fresh()
            args.cluster = args.cluster or args.deployment.scheduler()
        if args.cluster and args.cluster.startswith("local:"):
            cluster = subprocess.Popen([sys.executable, str(ROOT / "tests/batch/dask_cluster.py"),
                                        args.cluster.split(":", 1)[1]], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)
            args.cluster = cluster.stdout.readline().strip()  # type: ignore[union-attr]
        return run(root, args)
    finally:
        if cluster is not None:  # its standard input closed: it closes its workers and ends
            cluster.stdin.close()  # type: ignore[union-attr]
            try:
                cluster.wait(timeout=60)
            except subprocess.TimeoutExpired:
                cluster.kill()
                cluster.wait()
        if args.keep:
            print(f"kept: {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


def run(root: Path, args: argparse.Namespace) -> int:
    os.environ["GRADER_CACHE"] = str(root / "cache")
    exercises = write_course(root)
    write_class(root / "warm", 4)
    where = ("--cluster", args.cluster) if args.cluster else ("--workers", str(args.workers))
    deployment: Deployment | None = args.deployment
    # Warm: the grader's cache, and a deployment's workers (their fork servers started).
    grader("batch", root / "warm", "--exercises", exercises, "--out", root / "warm-out",
           *(where if deployment else ("--workers", 1)))
    uploads = uploads_of(root, args.students)
    carried = task_bytes(exercises, uploads)

    load_before = os.getloadavg()
    began = time.perf_counter()
    result = grader("batch", root / "class", "--exercises", exercises, "--out", root / "out", *where)
    batch_wall = time.perf_counter() - began
    assert result.returncode in (0, 1), result.stderr
    with sqlite3.connect(root / "out" / "results.sqlite") as db:
        batch_gradings, batch_work = db.execute("SELECT COUNT(*), SUM(wall_seconds) FROM gradings "
                                                "WHERE worker != '-'").fetchone()
        per_exercise = db.execute("SELECT exercise, COUNT(*), AVG(wall_seconds), AVG(cpu_seconds + grader_cpu_seconds) "
                                  "FROM gradings WHERE worker != '-' GROUP BY exercise ORDER BY exercise").fetchall()
    window = args.window or max(5.0, batch_wall)

    students = sorted({u.student for u in uploads})
    if deployment:
        tokens, staff = deployment.tokens(students, "rush-staff")
        deployment.forget_moments()
    else:
        state = State(root / "state", args.database)
        tokens = {student: issue(state, student) for student in students}
        staff = issue(state, "rush-staff", Role.INSTRUCTOR)
        state.close()
    servers: list[subprocess.Popen[str]] = []
    bases = [deployment.url] if deployment else []
    for number in range(0 if deployment else args.servers):
        shared = ("--database", args.database, "--name", f"rush-{number}") if args.database else ()
        server = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--state", root / "state",
                                   "--exercises", exercises, "--port", "0", *where, *shared,
                                   "--max-per-address", "0"],  # the whole class is on one loopback address
                                  stdout=subprocess.PIPE, stderr=open(root / f"serve-{number}.stderr", "w"), text=True,
                                  env={**os.environ, TIMES_VARIABLE: str(root / f"serve-{number}.times")})
        servers.append(server)
        bases.append(re.search(r"on (http://\S+) ", server.stdout.readline())[1])  # type: ignore[union-attr,index]
    answers: list[int] = []
    health: list[int] = []
    status, found = call(f"{bases[0]}/api/health", staff, health)
    # The ideal queue's workers: those the cluster has now (a deployment's, as its server counts them).
    workers = int(found.get("workers", args.workers)) * (1 if args.cluster else args.servers)
    if deployment and not {u.exercise for u in uploads} <= set(found.get("exercises", [])):
        raise SystemExit(f"the deployment's course is not this benchmark's (it has {found.get('exercises')}): "
                         f"write it with --write-course DIR and set GRADER_COURSE=DIR in its .env")
    pids = deployment.server_pids() if deployment else [server.pid for server in servers]
    depth: list[tuple[float, int, int]] = []  # (time.time(), queued, running)
    memory: list[list[tuple[float, int]]] = [[] for _ in pids]
    over = threading.Event()

    def sample() -> None:
        while not over.is_set():
            _, counts = call(f"{bases[0]}/api/health", staff, health)
            queue = counts.get("queue", {})
            depth.append((time.time(), queue.get("queued", 0), queue.get("running", 0)))
            for pid, samples in zip(pids, memory):
                samples.append((time.monotonic(), rss_kib(pid)))
            over.wait(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    threads = []
    try:
        sampler.start()
        start, deadline = time.time(), time.monotonic() + TIME_LIMIT
        for index, upload in enumerate(uploads):
            upload.server = index % len(bases)
            time.sleep(max(0.0, start + upload.at * window - time.time()))
            thread = threading.Thread(target=send, args=(upload, bases[upload.server], tokens[upload.student],
                                                         answers, deadline), daemon=True)
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        over.set()
        sampler.join()
    finally:
        for server in servers:
            server.send_signal(signal.SIGINT)
        for server in servers:
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()

    if deployment:
        rows: dict = deployment.rows()
    else:
        state = State(root / "state", args.database)
        rows = {row.id: row for row in state.list()}
        state.close()
    acknowledged = [u for u in uploads if u.status == 202]
    reported = [u for u in acknowledged if u.reported]
    lost = sum(1 for u in acknowledged if not u.reported or u.number not in rows)
    errors = sum(1 for status in answers if status >= 500 or status == 0)
    bad = count_by(str(status) for status in answers if status >= 500 or status == 0)  # 0: no answer
    # The ideal: the class's uploads, as sent, through a perfect queue over the same workers (every step but
    # the grading itself free), first come first served; each grading as long as the server measured it.
    timed = [u for u in reported if u.number in rows and rows[u.number].graded_at]
    ideals = simulated(timed, rows, workers)
    real, ideal = [u.reported - u.sent for u in timed], [ideals[u.number] for u in timed]
    fair = simulated(timed, rows, workers, fair=True)  # the same, in the server's fair order
    from_stored = perfect_queue(list(rows.values()), workers)  # the earlier figure: from each one's storing

    rush_from = start + 0.9 * window
    last = max((row.graded_at for row in rows.values() if row.graded_at), default=rush_from)
    on_workers = [row for row in rows.values() if row.grading_seconds is not None]
    # Begun on a worker in the stretch: work done before it is not counted to it.
    in_rush = [row for row in on_workers if row.graded_at and row.graded_at - (row.grading_seconds or 0) >= rush_from]
    rate = len(in_rush) / max(1e-9, last - rush_from)
    batch_rate = batch_gradings / batch_wall
    busy = sum(row.grading_seconds or 0.0 for row in in_rush) / max(1e-9, (last - rush_from) * workers)
    throughput = rate / batch_rate
    # The same in seconds of grading done per second: the mixes differ (the rush's first tries are cheap).
    work_ratio = (sum(row.grading_seconds or 0.0 for row in in_rush) / max(1e-9, last - rush_from)) / \
        (batch_work / batch_wall)
    p95 = percentile(real, .95) / percentile(ideal, .95) if real else float("nan")

    mode = (f"the deployment at {deployment.url} ({len(pids)} servers seen), " if deployment else
            f"{args.servers} server{'s' if args.servers > 1 else ''}"
            f"{' on ' + args.database.split('@')[0] + '@...' if args.database else ' on SQLite'}, ") + \
        f"{workers} {'Dask ' if args.cluster else 'local '}worker{'s' if workers != 1 else ''}"
    print(f"class: {args.students} students x 3 exercises, {len(uploads)} uploads "
          f"({len(uploads) - len({(u.student, u.exercise) for u in uploads})} resubmissions); {mode}; "
          f"window {window:.1f} s, {sum(1 for u in uploads if u.at >= 0.9) / len(uploads):.0%} of uploads in "
          f"its last tenth; load average (1, 5, 15 min) before the batch {' '.join(f'{v:.2f}' for v in load_before)}, "
          f"at the end {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print("batch, per exercise: " + "; ".join(f"{name} {count} gradings, {wall:.3f} s on a worker, {cpu:.3f} s CPU "
                                              f"(sandbox + worker)" for name, count, wall, cpu in per_exercise))
    print(f"a Dask task's job, pickled (the hand-in and its key): {carried}")
    print(f"batch: {batch_gradings} gradings in {batch_wall:.1f} s: {batch_rate:.2f} gradings/s; a grading took "
          f"{batch_work / max(1, batch_gradings):.3f} s on a worker (mean)")
    print(f"rush: {len(in_rush)} gradings from the last tenth's start to the last report ({last - rush_from:.1f} s): "
          f"{rate:.2f} gradings/s = {100 * throughput:.0f} % of the batch's (target >= 90 %: {met(throughput >= .9)});"
          f" a grading took {sum(r.grading_seconds or 0 for r in in_rush) / max(1, len(in_rush)):.3f} s on a worker "
          f"(mean), so in grading work {work_ratio:.2f} x the batch's; {len(uploads) / max(1e-9, last - start):.2f} "
          f"uploads/s over the whole run")
    if real:
        print(f"upload to report: p50 {statistics.median(real):.2f} s, p95 {percentile(real, .95):.2f} s, max "
              f"{max(real):.2f} s; a perfect queue over the same workers: p50 {statistics.median(ideal):.2f} s, "
              f"p95 {percentile(ideal, .95):.2f} s, max {max(ideal):.2f} s: p95 = {p95:.2f} x (target <= 1.2: "
              f"{met(p95 <= 1.2)})")
        print(f"  the same perfect queue in the server's fair order (round robin over students): p95 "
              f"{percentile([fair[u.number] for u in timed], .95):.2f} s; the earlier ideal (each upload's wait "
              f"counted from its storing, the queue's state as it was then): p95 "
              f"{percentile([from_stored[u.number] for u in timed if u.number in from_stored], .95):.2f} s")
    moments = deployment.moments() if deployment else {}
    for number in range(0 if deployment else args.servers):
        times = root / f"serve-{number}.times"
        if times.is_file():
            moments.update({line["id"]: line for line in map(json.loads, times.read_text().splitlines())})
    print(breakdown(timed, rows, moments, ideals))
    stored = sorted(row.submitted_at for row in rows.values())
    busiest = max((bisect.bisect_right(stored, at + 1.0) - index for index, at in enumerate(stored)), default=0)
    print(f"uploads stored: at most {busiest} in any one second (the server's storing of uploads at its busiest)")
    print(f"queue depth (queued+running) over the run: {depth_figure(depth, start)}")
    print(f"workers busy from the last tenth's start to the last report: {busy:.0%}")
    for number, samples in enumerate(memory):
        print(f"server {number} memory (RSS): {memory_of(samples)}")
    print(f"answers: {len(answers)}{f' (5xx or none, by status: {bad})' if bad else ''}; uploads acknowledged {len(acknowledged)} of {len(uploads)}, reported "
          f"{len(reported)}; verdicts {dict(sorted(count_by(u.verdict for u in reported).items()))}")
    print(f"command: {' '.join(sys.argv)}")
    print(f"rush: throughput/batch {throughput:.2f}, p95/ideal {p95:.2f}, lost {lost}, 5xx {errors}")
    return 1 if lost or errors else 0


if __name__ == "__main__":
    sys.exit(main())
