"""The sandboxed runner against tiny real submissions: limits, state between tests, plain data back."""

from __future__ import annotations

import errno
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from grader.checkers import CHECKERS
from grader.model import MISSING, CheckerSpec, Exercise, Fault, Limits, RunResult, Timing
from grader.model import Test as SpecTest
from grader.running import SubmissionRun
from grader.sandbox import ProcessBackend
from grader.model import Opaque

SOURCE = '''
import os, sys
calls = []

def remember(n):
    calls.append(n)
    return len(calls)

def crash():
    return helper()

def helper():
    return 1 / 0

def spin():
    while True:
        pass

def sleep():
    import time
    time.sleep(60)

def hog():
    return len(bytearray(4 << 30))

def flood():
    while True:
        print("x" * 10000)

class AlwaysEqual:
    def __eq__(self, other):
        return True

def cheat():
    return AlwaysEqual()

def shapes():
    return [(1, 2), {"k": {3}}, None, True, 1.5, "s", b"b", frozenset()]

def bye(code):
    sys.exit(code)

def vanish():
    os._exit(0)
'''


def make_test(call: str, cpu: float = 1.0, **limits: object) -> SpecTest:
    return SpecTest(name=call, call=call, stdin=None, compare="value", expect=MISSING, hidden=False, big=False,
                points=1, checker=CheckerSpec("value"), limits=Limits(cpu=cpu, **limits))  # type: ignore[arg-type]


EXERCISE = Exercise(id="demo", title="demo", kind="function", statement="", tests=(make_test("remember(1)", cpu=5.0),),
                    path=Path("/nonexistent/exercises/demo.yaml"), entry="remember")


@pytest.fixture(scope="module")
def run():
    with SubmissionRun(EXERCISE, SOURCE) as submission_run:
        yield submission_run.run


def test_every_test_starts_from_the_freshly_loaded_state(run) -> None:
    assert [run(make_test("remember(7)")).value for _ in range(3)] == [1, 1, 1]


def test_values_come_back_as_plain_data_with_their_types(run) -> None:
    result = run(make_test("shapes()"))
    assert result.value == [(1, 2), {"k": {3}}, None, True, 1.5, "s", b"b", set()]
    assert type(result.value[0]) is tuple


def test_an_object_that_claims_equality_is_not_plain_data(run) -> None:
    result = run(make_test("cheat()"))  # only its type's name comes back, equal to nothing a spec expects
    assert result.value == Opaque("AlwaysEqual") and result.fault is Fault.NONE
    assert not CHECKERS["value"](1, result.value).passed


def test_runtime_errors_carry_only_the_submissions_frames(run) -> None:
    result = run(make_test("crash()"))
    assert result.error_type == "ZeroDivisionError"
    assert 'File "submission.py", line 10, in crash' in result.traceback
    assert 'File "submission.py", line 13, in helper' in result.traceback
    assert "harness" not in result.traceback and "<test>" not in result.traceback


def test_cpu_limit_ends_a_busy_loop_and_the_next_test_still_runs(run) -> None:
    result = run(make_test("spin()", cpu=0.5))
    assert result.timed_out and 0.45 <= result.cpu_seconds < 3  # 0.9 x the limit: SIGPROF vs rusage jitter
    assert run(make_test("remember(1)")).value == 1


def test_wall_clock_backstop_ends_a_sleep_without_using_cpu(run) -> None:
    result = run(make_test("sleep()", cpu=1.0, wall=1.0))
    assert result.timing is Timing.STOPPED_WALL and result.cpu_seconds < 0.5


def test_memory_limit_gives_memory_error(run) -> None:
    assert run(make_test("hog()", memory=256)).fault is Fault.OUT_OF_MEMORY


def test_output_limit_stops_a_flood(run) -> None:
    result = run(make_test("flood()", cpu=5.0, output=64))
    assert result.output_truncated and len(result.stdout) == 64 << 10


def test_sys_exit_and_os_exit_are_reported(run) -> None:
    assert run(make_test("bye(0)")).exit_code == 0 and not run(make_test("bye(0)")).has_value
    assert run(make_test("bye(3)")).exit_code == 3
    assert run(make_test("vanish()")).fault is Fault.DIED


def test_a_file_that_fails_to_load_reports_its_error_for_every_test() -> None:
    broken = replace(EXERCISE, entry="missing_name")
    with SubmissionRun(broken, "x = 1\n") as submission_run:
        result: RunResult = submission_run.run(make_test("x"))
    assert result.error_type == "LookupError" and "defines no missing_name" in result.error_message


def test_load_errors_show_the_line() -> None:
    with SubmissionRun(EXERCISE, "def remember(n):\n    return n\nundefined_name\n") as submission_run:
        result = submission_run.run(make_test("remember(1)"))
    assert result.error_type == "NameError" and "line 3" in result.traceback


def test_replies_are_json_with_tags_and_a_bounded_parse() -> None:
    import tracemalloc

    from grader.sandbox.wire import decode

    assert decode(b'{"v": {"$t": [1, {"$s": ["a"]}, {"$d": [[{"$t": [1]}, {"$b": "\\u00ff"}]]}]}}') == {
        "v": (1, {"a"}, {(1,): b"\xff"})}
    assert decode(b"{'not': json}") is None and decode(b'{"$s": [[1]]}') is None  # unhashable: unreadable
    # Bounded by memory, not by a clock: literal_eval took ~1.5 GB (and ~25 s) on this frame, json ~70 MB.
    tracemalloc.start()
    try:
        assert decode(b"[" + b"[]," * 1_000_000 + b"[]]") is not None
        assert tracemalloc.get_traced_memory()[1] < 300 << 20
    finally:
        tracemalloc.stop()


def test_the_mount_namespace_hides_every_folder_but_the_system_ones() -> None:
    from grader.sandbox.jail import KEPT, hidden_folders

    hidden = hidden_folders("/usr/bin/python3", ("/usr/share/secret-course",))
    assert "/usr/share/secret-course" in hidden or not Path("/usr/share/secret-course").exists()
    assert not any(path in KEPT for path in hidden)
    assert all(Path(path).is_dir() for path in hidden)
    nested = hidden_folders(str(Path(__file__).resolve()))  # an interpreter inside this checkout
    assert not any(str(Path(__file__).resolve()).startswith(path + "/") for path in nested)


def test_a_sandbox_that_cannot_start_says_why() -> None:
    from grader.sandbox.isolation import detect

    with_missing_python = replace(detect(), landlock=False)
    import os

    os.environ["GRADER_PYTHON"] = "/nonexistent/python3"
    try:
        with SubmissionRun(EXERCISE, SOURCE, backend=ProcessBackend(with_missing_python)) as submission_run:
            result = submission_run.run(make_test("remember(1)"))
    finally:
        del os.environ["GRADER_PYTHON"]
    assert "sandbox set-up failed" in result.sandbox_error and "nonexistent" in result.sandbox_error


def test_a_private_folder_inside_another_is_covered_once_by_the_outer(tmp_path: Path) -> None:
    from grader.sandbox.jail import hidden_folders

    inner = tmp_path / "course" / "reference" / "demo" / "accepted"
    inner.mkdir(parents=True)
    hidden = hidden_folders("/usr/bin/python3", (str(inner), str(tmp_path / "course")))
    assert str(tmp_path / "course") in hidden and str(inner) not in hidden


def test_a_checkout_under_tmp_grades_its_own_references(tmp_path: Path) -> None:
    """CI clones the project under /tmp: the reference being graded sits inside a folder that is hidden."""
    import shutil
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    for folder in ("exercises", "reference"):
        shutil.copytree(root / folder / ("" if folder == "exercises" else "count-queens"),
                        tmp_path / folder / ("" if folder == "exercises" else "count-queens"))
    done = subprocess.run([sys.executable, "-m", "grader", "check", "count-queens",
                           str(tmp_path / "reference/count-queens/accepted/bitmask.py"), "--format", "json",
                           "--exercises", str(tmp_path / "exercises")], capture_output=True, text=True)
    assert '"verdict": "passed"' in done.stdout, done.stdout[:2000]


def test_a_cgroup_that_cannot_be_made_is_a_sandbox_error_not_a_weaker_sandbox(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from grader.sandbox import Isolation
    from grader.sandbox.groups import v1

    monkeypatch.setattr(v1, "V1_ROOT", tmp_path / "no-hierarchy")  # gone since the probe was kept
    with SubmissionRun(EXERCISE, SOURCE, backend=ProcessBackend(Isolation(cgroup=True))) as submission_run:
        result = submission_run.run(make_test("remember(1)"))
    assert result.sandbox_error.startswith("cannot create the sandbox's cgroup:")
    assert not result.has_value  # nothing ran


def _our_children() -> set[int]:
    from grader.sandbox.isolation import helper_pids

    pids: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as children:
            pids |= {int(pid) for pid in children.read().split()}
    return pids - helper_pids()


def _our_groups() -> set[str]:
    return {path.name for path in Path("/sys/fs/cgroup/pids").glob(f"grader-{os.getpid()}-*")}


def test_a_sandbox_that_cannot_join_its_cgroup_is_a_sandbox_error_and_leaves_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.sandbox import detect
    from grader.sandbox.groups import v1

    if not detect().cgroup:
        pytest.skip("needs the cgroup layer")

    def refuse(self: v1.Group, pid: int) -> None:
        raise OSError(errno.ESRCH, "No such process")

    monkeypatch.setattr(v1.Group, "add", refuse)
    before, groups_before = _our_children(), _our_groups()  # the module's shared sandbox's, among others
    with SubmissionRun(EXERCISE, SOURCE) as submission_run:
        result = submission_run.run(make_test("remember(1)"))
    assert result.sandbox_error.startswith("cannot start the sandbox:") and not result.has_value
    assert _our_children() <= before  # the forked sandbox was killed and reaped
    assert _our_groups() <= groups_before  # and its group removed


def test_a_network_namespace_that_cannot_be_made_is_a_sandbox_error_not_a_weaker_sandbox(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.sandbox import isolation, linux

    def refuse(flags: int) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    # A process whose holder is still to be made, on a machine whose kept probe said the layer works.
    monkeypatch.setattr(isolation, "_netns_holder", None)
    monkeypatch.setattr(isolation, "_netns_starting", None)
    monkeypatch.setattr(linux, "unshare", refuse)  # the holder forked from here cannot make its namespace
    isolation.start_netns_holder()
    with SubmissionRun(EXERCISE, SOURCE, backend=ProcessBackend(isolation.Isolation(netns=True))) as submission_run:
        result = submission_run.run(make_test("remember(1)"))
    assert result.sandbox_error.startswith("cannot make the sandbox's network namespace:")
    assert not result.has_value  # nothing ran
    assert isolation._netns_starting is None and isolation._netns_holder is None  # the failed holder is reaped


@pytest.mark.parametrize(("tag", "runs"), [(sys.implementation.cache_tag, "bytecode"), ("cpython-399", "source")])
def test_the_sandbox_runs_the_harness_compiled_by_the_grader_unless_its_python_differs(
        monkeypatch: pytest.MonkeyPatch, tag: str, runs: str) -> None:
    import marshal

    from grader.sandbox import wire

    code = marshal.dumps(compile("RUNS = 'bytecode'\n" + wire.HARNESS, "<harness>", "exec"))
    data = marshal.dumps((tag, code, "RUNS = 'source'\n" + wire.HARNESS))
    monkeypatch.setattr(wire, "harness_frame", lambda: len(data).to_bytes(4, "big") + data)
    source = "def runs():\n    import __main__\n    return __main__.RUNS\n"
    with SubmissionRun(replace(EXERCISE, entry="runs"), source) as submission_run:
        assert submission_run.run(make_test("runs()")).value == runs


@pytest.mark.parametrize("damage", [b"\x00damaged", b"\xe9*\x00\x00\x00"])  # garbage; a marshalled int, not code
def test_a_damaged_copy_of_the_compiled_harness_is_compiled_again(damage: bytes) -> None:
    from grader.sandbox import wire

    wire.harness_frame.cache_clear()
    wire.harness_frame()  # kept in the cache folder
    kept = next(wire.cache_dir().glob("harness-*.marshal"))
    kept.write_bytes(damage)
    wire.harness_frame.cache_clear()
    with SubmissionRun(EXERCISE, SOURCE) as submission_run:
        assert submission_run.run(make_test("remember(1)")).value == 1
    assert kept.read_bytes() != damage


# The runner's own test file, and functions that take time, or kill the harness.
TIMED = SOURCE + '''
import time

def burn(seconds):
    while time.process_time() < seconds:  # the test child's own CPU, from its fork
        pass
    return 1

def nap(seconds):
    time.sleep(seconds)
    return 1

def kill_harness():
    import signal
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(5)
'''
# Loaded at once, then (a harness rewritten while loading) writes replies with a wrong seq for ever, from
# a helper of its own that the per-test sweep no longer ends.
SPAMMER = '''
import __main__, os
_serve = __main__.serve

def serve(setup, code, namespace):
    if os.fork() == 0:
        os.setsid()
        frame = b'{"seq": 1}'
        while True:
            try:
                os.write(4, len(frame).to_bytes(4, "big") + frame)
            except OSError:
                os._exit(0)
    _serve(setup, code, namespace)

__main__.serve, __main__.sweep_and_reap = serve, lambda sweep: None

def remember(n):
    return 1

def spin():
    while True:
        pass
'''


def test_a_test_is_charged_its_own_cpu_and_nothing_of_the_next() -> None:
    tests = (make_test("burn(0.4)", cpu=5.0), make_test("remember(1)", cpu=5.0))
    with SubmissionRun(EXERCISE, TIMED) as submission_run:
        burned, cheap = (submission_run.run(t) for t in tests)
    assert burned.value == 1 and burned.cpu_seconds > 0.3
    assert cheap.value == 1 and cheap.cpu_seconds < 0.1


def test_a_wall_timeout_ends_that_test_and_the_next_runs_in_a_fresh_sandbox() -> None:
    sleepy = replace(make_test("nap(30)"), limits=Limits(cpu=1.0, wall=0.5))
    with SubmissionRun(EXERCISE, TIMED) as submission_run:
        assert submission_run.run(make_test("remember(1)")).value == 1
        first = submission_run.session
        slept, then = submission_run.run(sleepy), submission_run.run(make_test("remember(1)"))
        assert submission_run.session is not first  # killed with its sleeping test
    assert slept.timing is Timing.STOPPED_WALL and 0.4 < slept.wall_seconds < 10
    assert then.value == 1 and not then.timed_out


def test_a_test_after_one_that_killed_the_sandbox_gets_a_fresh_one() -> None:
    with SubmissionRun(EXERCISE, TIMED) as submission_run:
        broken = submission_run.run(make_test("kill_harness()"))
        again = submission_run.run(make_test("remember(1)"))
    assert broken.fault is Fault.DIED
    assert again.value == 1 and again.fault is Fault.NONE


def test_a_big_test_after_a_small_failure_is_skipped_without_running(tmp_path: Path) -> None:
    from grader.grading import GradingRequest, Pace, grade
    from grader.model import Verdict

    # Wrong on its small test; the big one would spin for its whole 20 s CPU limit if it were run.
    exercise = replace(EXERCISE, tests=(
        replace(make_test("remember(1)"), expect=2),
        replace(make_test("spin()", cpu=20.0), name="big", big=True, hidden=True, expect=1),
    ))
    submission = tmp_path / "demo.py"
    submission.write_text(TIMED)
    before, started = _our_children(), time.monotonic()
    report = grade(exercise, submission, GradingRequest(Pace.FAIL_FAST))  # a student's check fails fast
    assert time.monotonic() - started < 10
    assert [o.verdict for o in report.outcomes] == [Verdict.WRONG_ANSWER, Verdict.SKIPPED]
    assert _our_children() <= before


def test_a_borderline_test_is_run_once_more_and_the_next_test_still_gets_its_verdict(tmp_path: Path) -> None:
    from grader.grading import grade
    from grader.model import Verdict

    # 0.56 s of CPU against 0.5 s: past the limit but within the margin, so grading runs it again.
    exercise = replace(EXERCISE, tests=(replace(make_test("burn(0.56)", cpu=0.5), expect=1),
                                        replace(make_test("kill_harness()"), expect=1)))
    submission = tmp_path / "demo.py"
    submission.write_text(TIMED)
    report = grade(exercise, submission)
    assert [o.verdict for o in report.outcomes] == [Verdict.TIMEOUT, Verdict.RUNTIME_ERROR]


def test_a_helper_forging_replies_neither_answers_a_test_nor_holds_up_the_close(tmp_path: Path) -> None:
    from grader.grading import GradingRequest, Pace, grade
    from grader.model import Verdict

    exercise = replace(EXERCISE, tests=(
        replace(make_test("remember(1)"), expect=2),  # wrong: the big test is skipped
        replace(make_test("spin()"), name="big", big=True, hidden=True, expect=1, limits=Limits(cpu=20, wall=40)),
    ))
    submission = tmp_path / "demo.py"
    submission.write_text(SPAMMER)
    started = time.monotonic()
    report = grade(exercise, submission, GradingRequest(Pace.FAIL_FAST))
    assert [o.verdict for o in report.outcomes] == [Verdict.WRONG_ANSWER, Verdict.SKIPPED]
    assert time.monotonic() - started < 10


@pytest.mark.skipif(os.geteuid() != 0, reason="only root could run a submission as root")
def test_root_without_a_dedicated_uid_refuses_to_run_the_submission() -> None:
    from grader.sandbox import Isolation

    no_uid = Isolation(missing={"uid": "every sandbox uid is in use"})
    with SubmissionRun(EXERCISE, SOURCE, backend=ProcessBackend(no_uid)) as submission_run:
        result = submission_run.run(make_test("remember(1)"))
    assert result.sandbox_error == ("refusing to run the submission as root: no dedicated uid "
                                    "(every sandbox uid is in use)")
    assert not result.has_value  # nothing of the submission ran


@pytest.mark.skipif(os.geteuid() != 0, reason="slot uids are for root")
def test_two_graders_hold_two_uids_without_any_folder_to_lock(tmp_path: Path) -> None:
    import subprocess

    from grader.sandbox.isolation import slot_uid

    ours = slot_uid()
    code = "from grader.sandbox.isolation import slot_uid; print(slot_uid())"
    # Another grader whose pid would pick our uid first: it must skip it (the abstract socket is ours).
    theirs = [int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                 cwd=Path(__file__).resolve().parents[2]).stdout) for _ in range(3)]
    assert ours not in theirs
