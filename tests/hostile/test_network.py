"""No network: loopback TCP and UDP, UNIX sockets by path and abstract, under each layer alone and all."""

from __future__ import annotations

import json
import os
import secrets
import socket
import threading

import pytest

from tests.hostile.host import Course, Listeners, leftovers, submission

KINDS = ("tcp", "udp", "unix", "abstract")
TESTS = "".join(f"  - name: {kind}\n    call: {kind}()\n    expect: blocked\n" for kind in KINDS)

# Which attempts each layer stops on its own. Landlock handles TCP only (UDP needs seccomp or a netns);
# its ABI 6 scope also covers abstract sockets. A netns leaves a UNIX socket path reachable.
BLOCKED_BY = {
    "": KINDS,  # every layer this machine has
    "uid,seccomp": KINDS,  # what a container keeps
    "uid,netns": ("tcp", "udp", "abstract"),
    "uid,mountns": ("unix",),
    "uid,landlock": ("tcp", "abstract"),  # not UDP, not a UNIX socket by path (ABI 7)
}


class UnixListeners:
    """A UNIX socket any uid may connect to, by path and in the abstract namespace."""

    def __init__(self, folder: str) -> None:
        self.path = os.path.join(folder, "host.sock")
        self.name = f"hostile-{secrets.token_hex(6)}"
        self.received: list[str] = []
        self.sockets = []
        for address in (self.path, "\0" + self.name):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(address)
            sock.listen(4)
            sock.settimeout(0.2)
            self.sockets.append(sock)
        os.chmod(self.path, 0o777)
        self.running = True
        self.threads = [threading.Thread(target=self._accept, args=(s,), daemon=True) for s in self.sockets]
        for thread in self.threads:
            thread.start()

    def _accept(self, sock: socket.socket) -> None:
        while self.running:
            try:
                connection, _ = sock.accept()
            except (TimeoutError, OSError):
                continue
            self.received.append("unix" if sock.getsockname() == self.path else "abstract")
            connection.close()

    def close(self) -> None:
        self.running = False
        for thread in self.threads:
            thread.join(1)
        for sock in self.sockets:
            sock.close()


@pytest.mark.parametrize("layers", list(BLOCKED_BY), ids=lambda s: s or "all")
def test_no_connection_reaches_the_host(hostile: Course, layers: str) -> None:
    hostile.exercise(TESTS)
    inet, unix = Listeners(), UnixListeners(str(hostile.scratch))
    try:
        code = submission("network.py", unix_path=unix.path, abstract_name=unix.name, **inet.ports)
        result = hostile.check(code, env={"GRADER_LAYERS": layers} if layers else None)
    finally:
        inet.close()
        unix.close()
    report = result.json()
    outcomes = {t["name"]: t for t in report["tests"]}
    for kind in BLOCKED_BY[layers]:
        assert outcomes[kind]["verdict"] == "passed", (json.dumps(outcomes[kind]), report["isolation"])
    received = [r.split()[0] for r in inet.received] + unix.received
    assert not set(received) & set(BLOCKED_BY[layers]), received
    if not layers:
        assert received == []
    assert leftovers(result) == []
