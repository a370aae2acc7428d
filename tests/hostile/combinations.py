"""The layer combinations the sandbox claims, as ways to run `grader check` on a hostile course: all layers,
no cgroup, root with every layer off (the uid stays), root without a slot folder, and not root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.conftest import Completed
from tests.hostile.host import Course
from tests.hostile.test_not_root import SYSTEM_PYTHON, run_as_nobody

Runner = Callable[[Course, str], Completed]
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="needs root")


def with_layers(value: str) -> Runner:
    return lambda course, code: course.check(code, env={"GRADER_LAYERS": value} if value else None)


def without_slot_folder(course: Course, code: str) -> Completed:
    """As root, in a mount namespace where /run and /tmp are read-only (as in many containers), with only
    the course, the grader's scratch folder and its cache writable."""
    path = course.root / "class" / "alice" / "hostile.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(code)
    writable = [str(course.root), str(course.scratch), os.environ["GRADER_CACHE"]]
    script = ('set -e; mount -t tmpfs -o ro,size=4k tmpfs /run; for d in "$@"; do mount --bind "$d" "$d"; done; '
              'mount --rbind /tmp /tmp; mount -o remount,bind,ro /tmp; '
              'if touch /tmp/.writable 2>/dev/null || touch /run/.writable 2>/dev/null; then exit 99; fi; '
              f'exec {sys.executable} -m grader check hostile {path} --format json '
              f'--exercises {course.root / "exercises"}')
    process = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                              *writable], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "TMPDIR": str(course.scratch)})
    assert process.returncode != 99, "/tmp or /run stayed writable"
    return Completed(process.returncode, process.stdout, process.stderr)


def as_nobody(course: Course, code: str) -> Completed:
    """As uid 65534, on a copy of the course where that uid can read it (the scratch folder)."""
    shared = Course(course.scratch / "course", token=course.token, scratch=course.scratch)
    shutil.copytree(course.root / "exercises", shared.root / "exercises", dirs_exist_ok=True)
    return run_as_nobody(shared, code)


CAN_BECOME_NOBODY = os.geteuid() == 0 and shutil.which("setpriv") and os.path.exists(SYSTEM_PYTHON)
COMBINATIONS = {
    "all layers": pytest.param(with_layers(""), marks=ROOT_ONLY),
    "no cgroup": pytest.param(with_layers("uid,seccomp,netns,mountns,landlock"), marks=ROOT_ONLY),
    "root, every layer off": pytest.param(with_layers("none"), marks=ROOT_ONLY),
    "root without a slot folder": pytest.param(without_slot_folder, marks=[ROOT_ONLY, pytest.mark.skipif(
        not shutil.which("unshare"), reason="needs unshare(1)")]),
    "not root": pytest.param(as_nobody, marks=pytest.mark.skipif(
        not CAN_BECOME_NOBODY, reason="needs root, setpriv and the system's Python to become another user")),
}


def every_combination(function: Callable) -> Callable:
    """Run the test once per combination, as `run`."""
    return pytest.mark.parametrize("run", COMBINATIONS.values(), ids=COMBINATIONS.keys())(function)
