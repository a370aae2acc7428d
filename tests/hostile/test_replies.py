"""Forged replies: code that runs at load time writes its own reply frames, and every one of them still
ends in a verdict for its test, in a strict-JSON report of bounded size, in bounded grader time, under
every layer combination the sandbox claims."""

from __future__ import annotations

import json
import time

import pytest

from tests.conftest import Completed
from tests.hostile.host import Course, submission, verdicts
from tests.hostile.test_not_root import run_as_nobody

# GRADER_LAYERS for each combination: all the layers found; root without a slot uid; no cgroup.
LAYERS = {"all": None, "no uid": "seccomp,netns,mountns,landlock,cgroup", "no cgroup": "uid,seccomp,netns,mountns,landlock"}
MARGIN = 8 << 10  # bytes per test beyond the texts the output limit bounds: names, numbers, layout
OUTPUT_KIB = 64  # the hostile course's output limit


def check(course: Course, layers: str, code: str) -> Completed:
    if layers == "not root":
        return run_as_nobody(course, code, "--all")
    env = {} if LAYERS[layers] is None else {"GRADER_LAYERS": LAYERS[layers]}
    return course.check(code, "--all", env=env, timeout=90)  # the tests after a timeout run too


def strict(text: str) -> dict:
    """The report as a strict JSON parser reads it: NaN and Infinity are refused."""
    def refuse(name: str) -> None:
        raise ValueError(f"{name} in the report")

    return json.loads(text, parse_constant=refuse)


def bounded(result: Completed, tests: int) -> None:
    assert len(result.stdout.encode()) <= tests * ((OUTPUT_KIB << 10) + MARGIN) + MARGIN, len(result.stdout)


@pytest.fixture(params=[*LAYERS, "not root"])
def forging(request: pytest.FixtureRequest, hostile: Course) -> tuple[Course, str]:
    if request.param == "not root":
        import os
        import shutil

        if os.geteuid() != 0 or not shutil.which("setpriv"):
            pytest.skip("needs root and setpriv to become another user")
        return Course(hostile.scratch / "course", scratch=hostile.scratch), request.param
    return hostile, request.param


def test_a_forged_nan_cpu_neither_lifts_the_limit_nor_reaches_the_report(forging: tuple[Course, str]) -> None:
    course, layers = forging
    course.exercise("  - name: slow\n    call: slow()\n    expect: 1\n    limits: {cpu: 0.25, wall: 60}\n")
    result = check(course, layers, submission("forged_replies.py"))
    report = strict(result.stdout)
    got = {t["name"]: t for t in report["tests"]}
    assert got["slow"]["verdict"] == "timeout", result.stdout  # the grader's own CPU reading decides
    assert got["square(3)"]["verdict"] == "passed"


def test_every_forged_reply_ends_in_a_verdict_in_a_bounded_report(forging: tuple[Course, str]) -> None:
    course, layers = forging
    names = ["huge_status", "deep", "colliding", "colliding_set", "flood", "long_error", "wrong_types"]
    course.exercise("".join(f"  - name: {name}\n    call: {name}()\n    expect: [1, 2, 3]\n"
                            f"    checker: unordered\n" for name in names))
    started = time.monotonic()
    result = check(course, layers, submission("forged_replies.py"))
    elapsed = time.monotonic() - started
    assert result.returncode == 1, result.stderr[-2000:]  # a report, not the crash's exit 4
    report = strict(result.stdout)
    got = {t["name"]: t["verdict"] for t in report["tests"]}
    assert all(got[name] != "passed" for name in names), got
    assert got["deep"] == "runtime_error" and got["flood"] == "output_limit", got
    assert got["square(3)"] == "passed" and got[f"secret-{course.needle}"] != "passed"
    bounded(result, len(report["tests"]))
    assert elapsed < 60  # 75,000 colliding ints cost the checker ~100 s before; linear now


# Each forgery alone (the layers found), with the verdict it must end in.
ONE_BY_ONE = {"huge_status": "wrong_answer",  # status 2**40 raised OverflowError: exit 4, no report
              "deep": "runtime_error",  # 700 deep raised RecursionError
              "colliding": "wrong_answer",  # 75,000 ints hashing to 0: ~100 s in the checker's Counter
              "colliding_set": "runtime_error",  # the same as a set: refused before it is built
              "flood": "output_limit",  # 5 MB of stdout claiming stdout_size 0: a 5 MB report
              "long_error": "runtime_error",  # megabytes of class name, message and traceback
              "wrong_types": "runtime_error"}  # a str status, a list stdout, sys.exit(2**200)


@pytest.mark.parametrize("name", ONE_BY_ONE)
def test_one_forged_reply_ends_in_its_verdict(hostile: Course, name: str) -> None:
    hostile.exercise(f"  - name: {name}\n    call: {name}()\n    expect: [1, 2, 3]\n    checker: unordered\n")
    result = hostile.check(submission("forged_replies.py"), timeout=60)  # the old checker took ~100 s
    report = strict(result.stdout)
    assert {t["name"]: t["verdict"] for t in report["tests"]}[name] == ONE_BY_ONE[name], result.stdout[-3000:]
    bounded(result, len(report["tests"]))


def test_a_hidden_test_never_names_a_class_the_submission_made(hostile: Course) -> None:
    hostile.exercise("  - name: own\n    call: own()\n    expect: 0\n"
                     "  - name: borrowed\n    call: borrowed()\n    expect: 0\n"
                     "  - name: hidden-own\n    call: own()\n    expect: 0\n    hidden: true\n"
                     "  - name: hidden-builtin\n    call: builtin()\n    expect: 0\n    hidden: true\n")
    result = hostile.check(submission("class_leak.py"))
    report = strict(result.stdout)
    got = {t["name"]: t["feedback"] for t in report["tests"]}
    assert "Board2680" not in result.stdout and "the input was 2680" not in result.stdout
    assert got[f"secret-{hostile.needle}"] == "an exception of the submission's own class"
    assert got["hidden-own"] == "an exception of the submission's own class"
    assert got["hidden-builtin"] == "KeyError"
    assert got["own"].startswith("Board3: ")  # a visible test names the student's class: it helps
    assert got["borrowed"].startswith("ValueError (the submission's own class): ")


def test_a_forged_class_name_for_a_hidden_test_is_not_shown(hostile: Course) -> None:
    hostile.exercise("")
    result = hostile.check(submission("forged_replies.py"))
    got = {t["name"]: t for t in strict(result.stdout)["tests"]}
    assert got[f"secret-{hostile.needle}"]["feedback"] == "an exception of the submission's own class"
    assert "Leak2680" not in result.stdout
