"""A grader that is not root: rlimits, seccomp and Landlock still hold, and the teacher's processes too."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, Completed, our_processes
from tests.hostile.host import Course, submission, verdicts

NOBODY = 65534
SYSTEM_PYTHON = f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}"
pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv") or not os.path.exists(SYSTEM_PYTHON),
                                reason="needs root, setpriv and the system's Python to become another user")


def run_as_nobody(course: Course, code: str, *extra: str) -> Completed:
    """`python -m grader check` as uid 65534, on the system's interpreter (ours lives under /root)."""
    home = course.scratch / "nobody"
    home.mkdir(mode=0o777, exist_ok=True)
    home.chmod(0o1777)
    path = home / "hostile.py"
    path.write_text(code)
    site = next((Path(sys.prefix) / "lib").glob("python3*/site-packages"), None)  # our venv's packages
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(home), "GRADER_CACHE": str(home / "cache"),
           "PYTHONPATH": f"{ROOT}:{site}" if site else str(ROOT)}
    process = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", SYSTEM_PYTHON, "-m", "grader",
         "check", "hostile", str(path), "--format", "json", "--exercises", str(course.root / "exercises"), *extra],
        capture_output=True, text=True, timeout=60, env=env, cwd=home)
    return Completed(process.returncode, process.stdout, process.stderr)


@pytest.fixture
def shared(hostile: Course) -> Course:
    """The course where uid 65534 can read it (the scratch folder), like a world-readable checkout."""
    course = Course(hostile.scratch / "course", scratch=hostile.scratch)
    return course


def test_kill_minus_one_reaches_no_process_outside_the_sandbox(shared: Course) -> None:
    shared.exercise("  - name: killall\n    call: killall()\n    expect: x\n"
                    "  - name: read_spec\n    call: read_spec()\n    expect: denied\n")
    sentinel = subprocess.Popen(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                                 "sleep", "60"])
    try:
        spec = shared.root / "exercises" / "hostile.yaml"
        result = run_as_nobody(shared, submission("not_root.py", spec=spec))
        assert result.returncode == 1, result.stderr
        report = result.json()
        assert report["isolation"].startswith("rlimits only: not root")
        got = verdicts(result)
        assert got["killall"] in ("runtime_error", "wrong_answer"), result.stdout
        if "landlock" in report["isolation"]:
            assert got["read_spec"] == "passed", result.stdout  # the world-readable spec stays unread
            assert sentinel.poll() is None  # Landlock's signal scope kept the teacher's process alive
        assert got["square(3)"] == "passed"
    finally:
        sentinel.kill()
        sentinel.wait()


def test_a_fork_bomb_is_bounded_without_a_dedicated_uid(shared: Course) -> None:
    shared.exercise("  - name: attack\n    call: attack()\n    expect: 0\n")
    result = run_as_nobody(shared, submission("fork_bomb.py"))
    assert verdicts(result)["attack"] == "runtime_error", result.stdout + result.stderr
    assert verdicts(result)["square(3)"] == "passed"
    # The sandbox's interpreters still running as uid 65534, among this test process's own (another test
    # process may be grading as that uid right now).
    assert [p for p in our_processes() if p.uid == NOBODY and re.search(r"python.*-I -S -B", p.cmdline)] == []
