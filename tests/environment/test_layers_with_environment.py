"""Every layer still holds with a course environment in use: its compiled modules load under Landlock, the
mount namespace and seccomp, and what a package can reach (ctypes, subprocess) is bound like anything else."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import DATA_COURSE
from tests.hostile.host import Course, leftovers, verdicts

ATTACKS = Path(__file__).with_name("attacks.py")
TESTS = """
  - name: inet
    call: inet_socket()
    expect: blocked
  - name: secret
    call: read_secret()
    expect: blocked
  - name: environment
    call: write_environment()
    expect: [blocked, blocked]
  - name: threads
    call: blas_threads()
    expect: 1
  - name: processes
    call: fork_bomb()
    expect: limited
"""


@pytest.fixture
def course(tmp_path: Path, data_environment) -> Course:
    made = Course(tmp_path, environment=DATA_COURSE / "requirements.txt")
    yield made
    made.remove()


def test_a_submission_importing_ctypes_and_subprocess_from_the_environment_is_bound(course: Course) -> None:
    secret = course.root / "reference" / "secret.txt"
    course.exercise(TESTS, cpu=5, memory=512, extra=", processes: 16")
    secret.write_text(course.needle)
    code = ATTACKS.read_text().replace("{secret}", str(secret)).replace("{needle}", course.needle)
    result = course.check(code)
    assert result.json()["isolation"].count("environment ") == 1, result.stdout
    assert set(verdicts(result).values()) == {"passed"}, result.stdout
    assert course.needle not in result.stdout.replace(f"secret-{course.needle}", "")
    assert not leftovers(result)




SHARED_MEMORY = '''
import os
from multiprocessing import shared_memory


def share():
    block = shared_memory.SharedMemory(name="grader-test", create=True, size=4096)
    try:
        block.buf[:5] = b"hello"
        other = shared_memory.SharedMemory(name="grader-test")
        seen = bytes(other.buf[:5])
        other.close()
    finally:
        block.close()
    with open("/dev/shm/left-behind", "w") as file:  # for the next test to find, if it could
        file.write("x")
    return seen.decode()


def left_behind():
    return sorted(os.listdir("/dev/shm"))


def lock():
    import multiprocessing

    with multiprocessing.Lock():  # a POSIX semaphore, made in /dev/shm
        return "locked"


def square(n):
    return n * n
'''


def test_shared_memory_works_in_a_private_dev_shm_emptied_between_tests(course: Course) -> None:
    from grader.sandbox.isolation import detect

    if not detect().mountns:
        pytest.skip("a private /dev/shm comes with the mount namespace")
    course.exercise("  - name: share\n    call: share()\n    expect: hello\n"
                    "  - name: left\n    call: left_behind()\n    expect: []\n"
                    "  - name: lock\n    call: lock()\n    expect: locked\n")
    result = course.check(SHARED_MEMORY)
    assert set(verdicts(result).values()) == {"passed"}, result.stdout
    assert not os.path.exists("/dev/shm/left-behind") and not os.path.exists("/dev/shm/grader-test")
