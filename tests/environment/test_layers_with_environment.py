"""Every layer still holds with a course environment in use: its compiled modules load under Landlock, the
mount namespace and seccomp, and what a package can reach (ctypes, subprocess) is bound like anything else."""

from __future__ import annotations

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


