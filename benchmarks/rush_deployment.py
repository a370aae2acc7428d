"""benchmarks/rush.py pointed at a running deployment (deploy/): the class uploads to the proxy's URL over TLS,
the proxy's certificate trusted from a file (never unchecked), and everything else goes through the
deployment as its docs/deploy.md says: tokens issued by `grader serve tokens` in a server container, the
rows (each grading's time on a worker) read there too, the batch beside it run on the deployment's own
Dask scheduler. Needs the docker-compose folder the deployment runs from (its .env names the addresses)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path

# Run inside a server container: the rows the rush's figures need, as JSON (the API says nothing of a
# grading's own time on a worker).
ROWS = """
import json, os
from pathlib import Path
from grader.server.state import State
state = State(Path(os.environ["GRADER_STATE"]), os.environ["GRADER_DATABASE"], name="rush-reader")
print(json.dumps([[r.id, r.student, r.submitted_at, r.graded_at, r.grading_seconds, r.status] for r in state.list()]))
"""


@dataclass(frozen=True)
class Row:
    """A submission's row as the rush reads it (grader.server.rows.Submission's fields it uses)."""
    id: int
    student: str
    submitted_at: float
    graded_at: float | None
    grading_seconds: float | None
    status: str


class Deployment:
    def __init__(self, folder: Path, url: str | None, ca: Path | None, service: str = "server1") -> None:
        self.folder, self.service = folder, service
        self.env = read_env(folder / ".env")
        proxy = f"{self.env.get('GRADER_PROXY_ADDRESS', '127.0.0.10')}:{self.env.get('GRADER_PROXY_PORT', '8443')}"
        self.url = (url or f"https://{proxy}").rstrip("/")
        ca = ca or folder / "certs" / "site.crt"
        if not ca.is_file():
            raise SystemExit(f"--ca {ca}: no such file (the certificate that signed the proxy's, or the proxy's own)")
        # The host name (or the IP address) is checked too: deploy/up.sh's certificate names both.
        self.context = ssl.create_default_context(cafile=str(ca))
        self.compose_command = ["docker-compose"] if shutil.which("docker-compose") else ["docker", "compose"]

    def scheduler(self) -> str:
        return f"tcp://{self.env.get('GRADER_SCHEDULER_ADDRESS', '127.0.0.14')}:8786"

    def compose(self, *args: str, stdin: str | None = None) -> str:
        done = subprocess.run([*self.compose_command, *args], cwd=self.folder, input=stdin, capture_output=True,
                              text=True, check=False, timeout=600)
        if done.returncode:
            raise SystemExit(f"{' '.join(self.compose_command)} {' '.join(args[:4])} ... in {self.folder}: exit "
                             f"{done.returncode}\n{done.stderr[-2000:]}")
        return done.stdout

    def run(self, *args: str, stdin: str | None = None) -> str:
        """A command in the server container, with the database's password (grader-entry)."""
        return self.compose("exec", "-T", self.service, "grader-entry", *args, stdin=stdin)

    def tokens(self, students: list[str], staff: str) -> tuple[dict[str, str], str]:
        """A token per student (`grader serve tokens --roster`, the roster on standard input) and a staff one."""
        roster = io.StringIO()
        csv.writer(roster, lineterminator="\n").writerows([("folder",), *((s,) for s in students)])
        lines = list(csv.reader(self.run("grader", "serve", "tokens", "--roster", "/dev/stdin",
                                         stdin=roster.getvalue()).splitlines()))[1:]
        if len(lines) != len(students):
            raise SystemExit(f"`grader serve tokens` gave {len(lines)} tokens for {len(students)} students")
        # In the roster's order (a name the CSV guards against spreadsheet formulas comes back quoted).
        tokens = {student: line[1] for student, line in zip(students, lines)}
        return tokens, self.run("grader", "serve", "token", "--staff", staff).strip()

    def rows(self) -> dict[int, Row]:
        return {row[0]: Row(*row) for row in json.loads(self.run("python3", "-", stdin=ROWS))}

    def check_fresh(self) -> None:
        """A rush sends the same hand-ins each time: on a database that graded them once, each would be
        answered as the twin of an earlier one, with no worker."""
        held = len(self.rows())
        if held:
            raise SystemExit(f"the deployment's database holds {held} submissions already: rush a fresh one "
                             f"(in {self.folder}: docker-compose down -v, then up.sh)")

    def moments(self) -> dict[int, dict[str, float]]:
        """The servers' moments of each grading (GRADER_QUEUE_TIMES in .env; both servers append to it)."""
        path = self.env.get("GRADER_QUEUE_TIMES")
        if not path:
            return {}
        text = self.run("sh", "-c", f"cat '{path}' 2>/dev/null || true")
        return {line["id"]: line for line in map(json.loads, text.splitlines())}

    def forget_moments(self) -> None:
        path = self.env.get("GRADER_QUEUE_TIMES")
        if path:
            self.run("sh", "-c", f": > '{path}'")

    def server_pids(self) -> list[int]:
        """Each server's process as the host sees it (the child of the container's tini), for its memory;
        none when the deployment runs on another machine."""
        pids = []
        for service in ("server1", "server2"):
            try:
                container = self.compose("ps", "-q", service).strip()
                tini = subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", container], capture_output=True,
                                      text=True, check=True).stdout.strip()
                children = Path(f"/proc/{tini}/task/{tini}/children").read_text().split()
                pids.append(int(children[0]))
            except (OSError, SystemExit, subprocess.CalledProcessError, IndexError, ValueError):
                continue
        return pids


def read_env(path: Path) -> dict[str, str]:
    """A docker-compose .env: KEY=VALUE lines, # comments (the process's own environment wins, as in compose)."""
    values = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            key, equals, value = line.strip().partition("=")
            if equals and not key.startswith("#"):
                values[key.strip()] = value.strip()
    return {**values, **{key: value for key, value in os.environ.items() if key.startswith("GRADER_")}}
