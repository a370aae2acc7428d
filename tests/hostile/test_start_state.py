"""What each grader process sets up once: the layer probe kept per boot, and the sweep of its slot uid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def _doctor(kept: Path) -> str:
    """`grader doctor` with uid and seccomp, its probe kept in the folder `kept` bound over /run/grader-slots
    in a mount namespace of its own: the entry this test forges is seen by no other grader on the machine
    (another test process grading with the same layers, another run)."""
    Path("/run/grader-slots").mkdir(mode=0o700, exist_ok=True)
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                           'mount --bind "$0" /run/grader-slots && exec "$@"', kept, sys.executable, "-m", "grader",
                           "doctor"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "GRADER_LAYERS": "uid,seccomp"})
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())


def test_the_layer_probe_is_kept_per_boot_and_used_by_the_next_grader(tmp_path: Path) -> None:
    kept = tmp_path / "probe-seccomp.json"
    assert "seccomp" in _doctor(tmp_path)
    entry = json.loads(kept.read_text())
    assert entry["layers"] == ["seccomp"] and entry["missing"] == {}
    entry["missing"] = {"seccomp": "refused, says the kept probe"}
    kept.write_text(json.dumps(entry))
    assert "refused, says the kept probe" in _doctor(tmp_path)
    entry["boot"] = "another boot"  # a reboot: the probe runs again
    kept.write_text(json.dumps(entry))
    assert "refused, says the kept probe" not in _doctor(tmp_path)
    assert json.loads(kept.read_text())["missing"] == {}
