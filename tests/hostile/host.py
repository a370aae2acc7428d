"""What the hostile tests check on the host: a throwaway course, sandbox processes left, listeners."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import Completed, our_processes, run_cli

HERE = Path(__file__).resolve().parent
SUBMISSIONS = HERE / "submissions"
SQUARE_TEST = """
  - name: square(3)
    call: square(3)
    expect: 9
"""
GOOD = "def square(n):\n    return n * n\n\ndef attack(*args):\n    return 0\n"


def submission(name: str, **values: object) -> str:
    """A hostile submission from submissions/, with {placeholders} filled in (ports, tokens)."""
    text = (SUBMISSIONS / name).read_text()
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


@dataclass
class Course:
    """One exercise `hostile` (attack() tests, then square(3)), with secrets planted all around it."""

    root: Path
    token: str = field(default_factory=lambda: secrets.token_hex(8))
    # The grader's TMPDIR (its working folders when there is no mount namespace): reachable by any uid.
    scratch: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="hostile-scratch-")))
    environment: Path | None = None  # a requirements file: the course's environment, in use for every check

    def __post_init__(self) -> None:
        self.scratch.chmod(0o755)

    def remove(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)

    @property
    def needle(self) -> str:
        return f"HOSTILE-{self.token}"

    def exercise(self, tests: str, cpu: float = 1.0, memory: int = 256, extra: str = "") -> None:
        folder = self.root / "exercises"
        folder.mkdir(parents=True, exist_ok=True)
        if self.environment is not None:
            (self.root / "grader-course.yaml").write_text(f"environment:\n  requirements: {self.environment}\n")
        (folder / "hostile.yaml").write_text(
            f"title: Hostile\nkind: function\nentry: square\nstatement: x\n"
            f"limits: {{cpu: {cpu}, memory: {memory}, output: 64{extra}}}\n"
            f"tests:\n{tests}{SQUARE_TEST}"
            f"  - name: secret-{self.needle}\n    call: square(2680)\n    expect: 7182400\n    hidden: true\n")
        reference = self.root / "reference" / "hostile" / "accepted"
        reference.mkdir(parents=True, exist_ok=True)
        (reference / "ref.py").write_text(f"# {self.needle}\n{GOOD}")
        other = self.root / "class" / "bob"  # another student's work, next to this one's
        other.mkdir(parents=True, exist_ok=True)
        (other / "hostile.py").write_text(f"# {self.needle}\n{GOOD}")

    def check(self, code: str, *extra: str, env: dict | None = None, timeout: float = 60) -> Completed:
        path = self.root / "class" / "alice" / "hostile.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
        return run_cli("check", "hostile", path, "--format", "json", "--exercises", self.root / "exercises",
                       *extra, env={"TMPDIR": str(self.scratch), **(env or {})}, timeout=timeout)


def verdicts(result: Completed) -> dict[str, str]:
    return {t["name"]: t["verdict"] for t in result.json()["tests"]}


def slot_uid(result: Completed) -> int | None:
    """The sandbox uid a check used, from its report ("isolation: uid 61234, seccomp, ...")."""
    match = re.search(r"uid (\d+)", result.json()["isolation"])
    return int(match.group(1)) if match else None


def leftovers(result: Completed, marker: str | None = None) -> list[str]:
    """Processes of the check's sandbox uid, or whose command line holds `marker`: none may outlive it.
    Only this test process's own are looked at (what escaped the check comes back to it): the uid is free
    once the check ends, and another grader on the machine may hold it by now."""
    sandbox_uid = slot_uid(result)
    return [f"{p.pid} uid={p.uid} {p.cmdline[:80]}" for p in our_processes()
            if (sandbox_uid is not None and p.uid == sandbox_uid) or (marker and marker in p.cmdline)]


class Listeners:
    """A loopback TCP and UDP listener that record whatever reaches them."""

    def __init__(self) -> None:
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(8)
        self.tcp.settimeout(0.2)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.settimeout(0.2)
        self.received: list[str] = []
        self.running = True
        self.threads = [threading.Thread(target=self._accept, daemon=True),
                        threading.Thread(target=self._datagrams, daemon=True)]
        for thread in self.threads:
            thread.start()

    @property
    def ports(self) -> dict[str, int]:
        return {"tcp_port": self.tcp.getsockname()[1], "udp_port": self.udp.getsockname()[1]}

    def _accept(self) -> None:
        while self.running:
            try:
                connection, peer = self.tcp.accept()
            except (TimeoutError, OSError):
                continue
            self.received.append(f"tcp from {peer}")  # first word: which listener
            connection.close()

    def _datagrams(self) -> None:
        while self.running:
            try:
                data, peer = self.udp.recvfrom(4096)
            except (TimeoutError, OSError):
                continue
            self.received.append(f"udp {data!r} from {peer}")

    def close(self) -> None:
        self.running = False
        for thread in self.threads:
            thread.join(1)
        self.tcp.close()
        self.udp.close()


def sandbox_pids(marker: str) -> list[int]:
    """Live processes whose command line holds `marker` (zombies excluded)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(name))
    return found
