"""A fork server that loads more than another of the same environment (pandas besides numpy) is forked from
that one, not started anew: it imports only the extra modules, its sandboxes see both, and it dies with the
server it came from, which is then started again, and it with it, at the next sandbox."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="a fork server needs root (a dedicated uid)")

SETUP = {"mode": "module", "prelude": "", "test_setup": "", "entry": "probe", "forbid": [], "modules": [],
         "name": "", "load_cpu": 2.0, "margin": 1.2,
         "source": "import sys\n\ndef probe():\n"
                   "    return [sys.modules['chain_base'].LOADED_IN, 'chain_extra' in sys.modules]\n"}
REQUEST = {"seq": 1, "call": "probe()", "stdin": "", "compare": "value", "cpu": 2.0, "margin": 1.2,
           "memory": 256 << 20, "output": 64 << 10}


@pytest.fixture
def servers(tmp_path: Path):
    from grader.sandbox.forks import ForkServer, refusal
    from grader.sandbox.isolation import detect

    isolation = detect()
    if refusal(isolation):
        pytest.skip(f"no fork server on this machine: {refusal(isolation)}")
    site = tmp_path / "site"
    site.mkdir()
    (site / "chain_base.py").write_text("import os\nLOADED_IN = os.getpid()\n")
    (site / "chain_extra.py").write_text("")
    tmp_path.chmod(0o755)
    base = ForkServer(isolation, str(site), {}, ("chain_base",))
    chained = ForkServer(isolation, str(site), {}, ("chain_base", "chain_extra"), base)
    yield isolation, base, chained
    for server in (chained, base):
        server.close()


def _probe(isolation, server) -> dict[str, object]:
    from grader.model import Limits
    from grader.sandbox.forks import ForkServerBackend

    session = ForkServerBackend(isolation, server).start(Limits())
    try:
        assert session.load(SETUP, 10).data == {"loaded": True}
        reply = session.run(REQUEST, 10)
        assert reply.failure == "" and reply.data is not None, reply
        return json.loads(reply.data["result"])  # type: ignore[arg-type]
    finally:
        session.close()


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[1])


def test_a_server_that_loads_more_is_forked_from_the_one_that_loads_less(servers) -> None:
    isolation, base, chained = servers
    loaded_in, extra = _probe(isolation, chained)["value"]
    assert chained.base is base and base.pid and _parent(chained.pid) == base.pid
    assert loaded_in == base.pid and extra is True  # the base module was imported once, by the base
    assert _probe(isolation, chained)["value"] == [loaded_in, True]  # each sandbox a fresh fork of the same server


def test_the_forked_server_dies_with_its_base_and_both_start_again(servers) -> None:
    isolation, base, chained = servers
    assert _probe(isolation, chained)["value"][1] is True
    first_base, first_chained = base.pid, chained.pid
    os.kill(first_base, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while chained.alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not chained.alive()  # killed with its base: never left serving without it
    assert _probe(isolation, chained)["value"][1] is True
    assert base.pid not in (0, first_base) and chained.pid not in (0, first_chained)
    assert _parent(chained.pid) == base.pid


def test_a_server_whose_preload_does_not_extend_the_others_starts_on_its_own(servers) -> None:
    from grader.sandbox.forks import ForkServer

    isolation, base, _ = servers
    apart = ForkServer(isolation, base.site_packages, {}, ("chain_extra",), base)
    try:
        assert apart.base is None
        assert _probe(isolation, apart)["error_type"] == "KeyError"  # no chain_base: loaded on its own
        assert _parent(apart.pid) == os.getpid()
    finally:
        apart.close()


def test_a_server_its_base_reaped_is_let_go_without_signalling_the_process_that_took_its_pid(servers) -> None:
    """A forked server is its base's child, not the worker's: the base reaps it once it ended, and its pid
    may be given to another process before the worker notices. Letting go of it must not kill that one."""
    import subprocess

    isolation, base, chained = servers
    assert _probe(isolation, chained)["value"][1] is True
    dead = chained.pid
    os.kill(dead, signal.SIGKILL)
    for _ in range(1000):  # a backstop, not a timing: SIGKILL ends it at once
        if _state(dead) in ("Z", ""):
            break
        time.sleep(0.01)
    base.reap(dead)  # any request: the base reaps the servers it forked first, so the pid is free now
    for _ in range(100):  # the next pid is the freed one, unless another process took it meanwhile
        Path("/proc/sys/kernel/ns_last_pid").write_text(str(dead - 1))
        heir = subprocess.Popen(["sleep", "60"])
        if heir.pid == dead:
            break
        heir.kill()
        heir.wait()
    else:
        pytest.skip("the freed pid was always taken first by another process")
    try:
        assert not chained.alive()  # it ended: let go of
    finally:
        heir.terminate()
        heir.wait()
    # Ended by our SIGTERM only: not killed (SIGKILL) nor reaped (status 0) by the worker meanwhile.
    assert heir.returncode == -signal.SIGTERM, "the process that took the dead server's pid was hit"


def _state(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat[stat.rindex(")") + 2]
