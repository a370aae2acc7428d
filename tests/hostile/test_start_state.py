"""What each grader process sets up once: the layer probe kept per boot, and the sweep of its slot uid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the probe is kept, and the uid swept, as root only")

LEFTOVER = """
import os, signal, sys, time
from pathlib import Path
from grader.model import MISSING, CheckerSpec, Exercise, Limits, Test
from grader.running import SubmissionRun
from grader.sandbox.isolation import detect

uid = detect().uid
leftover = os.fork()
if leftover == 0:  # what a grader killed mid-test leaves running as its slot uid
    os.setgroups([]); os.setgid(uid); os.setuid(uid)
    time.sleep(60)
    os._exit(0)
time.sleep(0.2)
test = Test(name="one", call="one()", stdin=None, compare="value", expect=MISSING, hidden=False, big=False,
            points=1, checker=CheckerSpec("value"), limits=Limits(cpu=2.0))
exercise = Exercise(id="one", title="one", kind="function", statement="", tests=(test,),
                    path=Path("/nonexistent/exercises/one.yaml"), entry="one")
with SubmissionRun(exercise, "def one():\\n    return 1\\n") as run:
    value = run.run(test).value
_, status = os.waitpid(leftover, os.WNOHANG)
print(json.dumps({"value": value, "killed": os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL}))
""".replace("import os, signal", "import json, os, signal")


def test_the_first_sandbox_of_a_grader_kills_what_was_left_running_as_its_uid() -> None:
    done = subprocess.run([sys.executable, "-c", LEFTOVER], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"value": 1, "killed": True}


def test_the_layer_probe_is_kept_per_boot_and_used_by_the_next_grader() -> None:
    only = {"GRADER_LAYERS": "uid,seccomp"}  # an entry of its own: other graders' entries are left alone
    kept = Path("/run/grader-slots/probe-seccomp.json")
    kept.unlink(missing_ok=True)
    try:
        assert "seccomp" in run_cli("doctor", env=only).stdout
        entry = json.loads(kept.read_text())
        assert entry["layers"] == ["seccomp"] and entry["missing"] == {}
        entry["missing"] = {"seccomp": "refused, says the kept probe"}
        kept.write_text(json.dumps(entry))
        assert "refused, says the kept probe" in " ".join(run_cli("doctor", env=only).stdout.split())
        entry["boot"] = "another boot"  # a reboot: the probe runs again
        kept.write_text(json.dumps(entry))
        assert "refused, says the kept probe" not in " ".join(run_cli("doctor", env=only).stdout.split())
        assert json.loads(kept.read_text())["missing"] == {}
    finally:
        kept.unlink(missing_ok=True)
