"""No reading what it must not read, no writing outside its working folder."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tests.hostile.host import Course, leftovers, submission, verdicts

TESTS = """
  - name: search()
    call: search()
    expect: []
    limits: {cpu: 5, wall: 20}
  - name: write_outside()
    call: write_outside()
    expect: []
"""


def plant(hostile: Course) -> list[Path]:
    """The secret in a world-readable file in /tmp and the grader's environment, besides the course's
    spec, reference and another student's file (planted by Course.exercise)."""
    loose = Path(f"/tmp/hostile-secret-{hostile.token}.txt")
    loose.write_text(f"the answer: {hostile.needle}\n")
    loose.chmod(0o644)
    return [loose]


def fingerprint(root: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file() and "alice" not in p.parts}  # all but the submission itself


@pytest.mark.parametrize("layers", ["", "uid,seccomp,mountns", "uid,seccomp,landlock"], ids=["all", "mountns", "landlock"])
def test_the_secret_is_nowhere_to_be_found_and_nothing_is_written(hostile: Course, layers: str) -> None:
    hostile.exercise(TESTS)
    planted = plant(hostile)
    before = fingerprint(hostile.root)
    env = {"GRADER_HOSTILE_SECRET": hostile.needle, **({"GRADER_LAYERS": layers} if layers else {})}
    try:
        result = hostile.check(submission("search_disk.py", token=hostile.token, course=hostile.root), env=env)
    finally:
        for path in planted:
            path.unlink()
    report = result.json()
    outcomes = {t["name"]: t for t in report["tests"]}
    search = outcomes["search()"]
    assert search["verdict"] == "passed", (search["actual"], search["feedback"], report["isolation"])
    written = outcomes["write_outside()"]
    if "mountns" in report["isolation"]:
        # Its own /dev/shm (a fresh tmpfs of the namespace, emptied per test) is the one place it may write
        # outside its working folder; the host's /dev/shm stays untouched (checked below).
        assert written["verdict"] == "passed" or written["actual"] == f"['/dev/shm/{hostile.token}-w']", written
    else:
        assert written["verdict"] == "passed", written["actual"]
    assert verdicts(result)["square(3)"] == "passed"
    assert fingerprint(hostile.root) == before  # spec, reference, other students: unchanged
    for folder in ("/tmp", "/dev/shm", "/var/tmp", os.path.expanduser("~")):
        assert not list(Path(folder).glob(f"{hostile.token}*")), folder
    assert list(hostile.scratch.iterdir()) == []  # ...and nothing of it is left
    assert leftovers(result) == []


def test_without_mountns_or_landlock_what_it_wrote_is_removed(hostile: Course) -> None:
    """uid and seccomp only (an old kernel in a container): /tmp and /dev/shm are writable, so the files
    the sandbox uid left there are removed when the sandbox closes."""
    hostile.exercise(TESTS)
    result = hostile.check(submission("search_disk.py", token=hostile.token, course=hostile.root),
                           env={"GRADER_LAYERS": "uid,seccomp"})
    assert "uid" in result.json()["isolation"]
    assert verdicts(result)["write_outside()"] == "wrong_answer"  # it did write in /tmp and /dev/shm...
    for folder in ("/tmp", "/dev/shm", "/var/tmp"):
        assert not list(Path(folder).glob(f"{hostile.token}*")), folder
    assert list(hostile.scratch.iterdir()) == []  # ...and nothing of it is left
    assert leftovers(result) == []


def test_a_hidden_input_never_comes_back_in_a_visible_test(hostile: Course) -> None:
    hostile.exercise("  - name: hidden\n    call: square(7919)\n    expect: 62710561\n    hidden: true\n"
                     "  - name: show\n    call: show()\n    expect: x\n")
    result = hostile.check(submission("hidden_leak.py"))
    shown = {t["name"]: t for t in result.json()["tests"]}["show"]
    assert shown["verdict"] == "wrong_answer"
    assert "7919" not in result.stdout and "2680" not in result.stdout, shown["actual"]
    assert "show()" in shown["actual"]  # the rewritten harness did run: it saw only its own request
