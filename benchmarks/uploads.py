"""Uploads stored per second by a real `grader serve`, with the group commit on and off, on SQLite and on
PostgreSQL, with N clients each sending one upload after another (its next once its 202 is in). Loopback
and Unix sockets only.

    python benchmarks/uploads.py [--clients 1 8 32] [--uploads 240] [--rounds 3] [--database URL | --no-postgres]
                                 [--against DIR]

Four servers run side by side, each with its own state folder (and its own PostgreSQL database): SQLite and
PostgreSQL, each with the group commit and without it (GRADER_GROUP_COMMIT=off, an environment variable only
this benchmark sets: every upload committed alone, as before the group commit). Each has one worker, which
grades the uploads as they come (the same correct hand-in every time, so most are graded as twins of the
first): the storing is measured at the load of a grading server. In each round, for each client count, each
server takes `--uploads` uploads from its N clients (students of their own, a keep-alive connection each);
the figure is the acknowledged uploads per second of wall time, first send to last 202. The two sides of a
database are measured back to back, every server's queue drained before each; the median of the rounds is printed for
each, and the median of the rounds' ratios group commit / one by one (a pair shares the machine's load of
its moment). --against DIR: the one-by-one servers run the code of another checkout instead (the commit
before the group commit, in a temporary `git worktree`). Without --database (a URL naming a database), a
throwaway PostgreSQL cluster is started from the system's binaries, as tests/server/test_postgres.py does."""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.server.client import multipart
from grader.server.group_commit import GROUPED
from tests.batch.classroom import write_course

# As a user runs it: this workplace sets PYTHONDONTWRITEBYTECODE, which recompiles every module at every start.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ADD = b"def add(a, b):\n    return a + b\n"
POSTGRES_BIN = Path("/usr/lib/postgresql")


@dataclass
class Served:
    label: str
    base: str
    staff: str
    students: list[str]
    process: subprocess.Popen[str]
    rates: dict[int, list[float]] = field(default_factory=dict)
    refused: int = 0


# Run by the servers' own code (this checkout's, or --against's): their schema, their tokens.
ISSUE = """import json, sys
from pathlib import Path
from grader.server.state import State
from grader.server.tokens import Role, issue
state = State(Path(sys.argv[1]), sys.argv[2] or None)
print(json.dumps([[issue(state, f"student{n}") for n in range(int(sys.argv[3]))],
                  issue(state, "bench-staff", Role.INSTRUCTOR)]))
state.close()
"""


def start(root: Path, exercises: Path, label: str, grouped: bool, database: str | None, clients: int,
          code: Path = ROOT) -> Served:
    """A server of the code in `code` (this checkout, or the one --against names)."""
    folder = root / label
    env = {**ENV, GROUPED: "on" if grouped else "off", "PYTHONPATH": str(code)}
    issued = subprocess.run([sys.executable, "-c", ISSUE, folder, database or "", str(clients)], cwd=code, env=env,
                            capture_output=True, text=True, check=True)
    students, staff = json.loads(issued.stdout)
    shared = ("--database", database) if database else ()
    with open(root / f"{label}.stderr", "w") as errors:  # the child keeps its own copy
        process = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--state", str(folder), "--exercises",
                                    str(exercises), "--port", "0", "--workers", "1", "--max-per-address", "0",
                                    *shared], stdout=subprocess.PIPE, stderr=errors, text=True, cwd=code, env=env)
    line = process.stdout.readline()  # type: ignore[union-attr]
    found = re.search(r"on (http://\S+) ", line)
    if not found:
        raise SystemExit(f"{label}: the server did not start: {(root / f'{label}.stderr').read_text()}")
    return Served(label, found[1], staff, students, process)


def request(connection: http.client.HTTPConnection, method: str, path: str, token: str,
            body: bytes | None = None, kind: str | None = None) -> tuple[int, bytes]:
    headers = {"Authorization": f"Bearer {token}"} | ({"Content-Type": kind} if kind else {})
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    return response.status, response.read()


def drained(served: Served) -> None:
    host = urlsplit(served.base)
    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=120)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        queue = json.loads(request(connection, "GET", "/api/health", served.staff)[1])["queue"]
        if queue["queued"] == 0 and queue["running"] == 0:
            break
        time.sleep(0.1)
    connection.close()


def measure(served: Served, clients: int, uploads: int, servers: list[Served]) -> float:
    """Acknowledged uploads per second: `clients` students, each its share of `uploads`, back to back.
    Every server's queue drained first: no grading left by the last measurement runs beside this one."""
    for other in servers:
        drained(other)
    body, kind = multipart({"exercise": "add"}, "file", "add.py", ADD)
    host = urlsplit(served.base)
    acknowledged, refused = [0] * clients, [0] * clients
    ready = threading.Barrier(clients + 1)

    def client(n: int) -> None:
        connection = http.client.HTTPConnection(host.hostname, host.port, timeout=300)
        connection.connect()
        ready.wait()
        for _ in range(uploads // clients):
            status, _ = request(connection, "POST", "/api/submissions", served.students[n], body, kind)
            if status == 202:
                acknowledged[n] += 1
            else:
                refused[n] += 1
        connection.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    ready.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    served.refused += sum(refused)
    return sum(acknowledged) / wall


@contextmanager
def postgres() -> Iterator[str | None]:
    """A throwaway cluster on a Unix socket (the system's initdb, run as the postgres user), or None."""
    found = sorted(POSTGRES_BIN.glob("*/bin/initdb"))
    if not found or shutil.which("runuser") is None:
        yield None
        return
    binaries, folder = found[-1].parent, Path(tempfile.mkdtemp(prefix="grader-pg-"))  # its user enters it
    shutil.chown(folder, "postgres", "postgres")
    as_postgres = ["runuser", "-u", "postgres", "--"]
    subprocess.run([*as_postgres, binaries / "initdb", "-D", folder / "data", "-A", "trust", "-U", "grader"],
                   check=True, capture_output=True)
    server = subprocess.Popen([*as_postgres, binaries / "postgres", "-D", folder / "data", "-k", folder, "-c",
                               "listen_addresses=", "-p", "5497"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while subprocess.run([binaries / "pg_isready", "-h", folder, "-p", "5497"], capture_output=True,
                             check=False).returncode:
            time.sleep(0.2)
        yield f"postgresql://grader@/postgres?host={folder}&port=5497"
    finally:
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


def database_for(url: str, name: str) -> str:
    """A fresh database in the cluster `url` names, for one server."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f"DROP DATABASE IF EXISTS {name}")
        db.execute(f"CREATE DATABASE {name}")
    return re.sub(r"/[^/?]*(\?|$)", rf"/{name}\1", url, count=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--uploads", type=int, default=240, help="uploads per measurement (default 240)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the median is printed (default 3)")
    parser.add_argument("--database", help="a PostgreSQL cluster to make the servers' databases in "
                                           "(default: a throwaway one, started here)")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--against", type=Path, metavar="DIR", help="the one-by-one servers run the code of this "
                        "checkout (e.g. `git worktree add /tmp/before HEAD~3`) instead of GRADER_GROUP_COMMIT=off")
    args = parser.parse_args()
    if min(args.clients) < 1 or args.uploads < max(args.clients) or args.rounds < 1:
        parser.error("--clients at least 1, --uploads at least the most clients, --rounds at least 1")
    if args.against is not None and not (args.against / "grader" / "server" / "state.py").is_file():
        parser.error(f"--against {args.against}: not a checkout of grader (no grader/server/state.py)")
    root = Path(tempfile.mkdtemp(prefix="grader-uploads-"))
    os.environ["GRADER_CACHE"] = str(root / "cache")
    try:
        with postgres() if not (args.database or args.no_postgres) else _given(args.database) as cluster:
            return run(root, args, None if args.no_postgres else cluster)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def _given(url: str | None) -> Iterator[str | None]:
    yield url


def run(root: Path, args: argparse.Namespace, cluster: str | None) -> int:
    exercises = write_course(root)
    most = max(args.clients)
    servers = []
    for base, database in (("sqlite", None), ("postgres", cluster)):
        if base == "postgres" and cluster is None:
            print("PostgreSQL: none (no --database and no server binaries): SQLite only")
            continue
        for grouped in (True, False):
            label = f"{base}-{'group' if grouped else 'alone'}"
            url = database_for(database, label.replace("-", "_")) if database else None
            code = ROOT if grouped or args.against is None else args.against.resolve()
            servers.append(start(root, exercises, label, grouped, url, most, code))
    try:
        for served in servers:  # the first grading (not a twin) and a warm server before any clock
            measure(served, 1, 4, servers)
        for round_ in range(args.rounds):
            for clients in args.clients:
                for pair in zip(servers[::2], servers[1::2]):  # the two sides back to back: a pair's ratio
                    for served in pair if round_ % 2 == 0 else pair[::-1]:  # neither side always first
                        served.rates.setdefault(clients, []).append(measure(served, clients, args.uploads, servers))
            print(f"round {round_ + 1} of {args.rounds} done", file=sys.stderr)
    finally:
        for served in servers:
            served.process.terminate()
            served.process.wait(timeout=60)
    report(servers, args)
    return 1 if any(served.refused for served in servers) else 0


def report(servers: list[Served], args: argparse.Namespace) -> None:
    load = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.node()}, {os.cpu_count()} CPUs, "
          f"load {load[0]:.1f}; {args.uploads} uploads a measurement, median of {args.rounds} rounds; one by one: "
          f"{args.against or GROUPED + '=off'}")
    print("| database | clients | one by one (stores/s) | group commit (stores/s) | ratio (median of the rounds') "
          "| rounds: one by one; group |")
    print("| --- | --- | --- | --- | --- | --- |")
    by_label = {served.label: served for served in servers}
    for base in ("sqlite", "postgres"):
        if f"{base}-group" not in by_label:
            continue
        for clients in args.clients:
            alones, groups = by_label[f"{base}-alone"].rates[clients], by_label[f"{base}-group"].rates[clients]
            alone, group = statistics.median(alones), statistics.median(groups)
            ratio = statistics.median(g / a for g, a in zip(groups, alones))  # each round's pair, measured together
            rounds = "; ".join(" ".join(f"{rate:.0f}" for rate in by_label[f"{base}-{side}"].rates[clients])
                               for side in ("alone", "group"))
            print(f"| {base} | {clients} | {alone:.1f} | {group:.1f} | {ratio:.2f} | {rounds} |")
    refused = {served.label: served.refused for served in servers if served.refused}
    print(f"not acknowledged: {refused or 'none'}")


if __name__ == "__main__":
    sys.exit(main())
