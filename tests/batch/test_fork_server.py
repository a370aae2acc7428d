"""The fork server of a batch worker (grader/sandbox/forks.py): real batches through the CLI, with it and
without it (GRADER_FORK_SERVER=off, today's sandbox per submission), give the same grades; nothing of one
submission reaches the next on the same worker; a server killed mid-batch is replaced."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import DATA_COURSE, ROOT, Completed, run_cli

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="a fork server needs root (a dedicated uid)")


@pytest.fixture(scope="module", autouse=True)
def layers_allow_it() -> None:
    from grader.sandbox.forks import refusal
    from grader.sandbox.isolation import detect

    why = refusal(detect())
    if why and "GRADER_FORK_SERVER" not in why:
        pytest.skip(f"no fork server on this machine: {why}")


def batch(submissions: Path, exercises: Path, out: Path, fork_server: bool, *extra: object,
          timeout: float = 600) -> Completed:
    result = run_cli("batch", submissions, "--exercises", exercises, "--out", out, *extra, timeout=timeout,
                     env={"GRADER_FORK_SERVER": "on" if fork_server else "off"})
    assert result.returncode == 0, result.stdout + result.stderr
    said = result.stdout + result.stderr
    assert ("each with a fork server" in said) is fork_server, said
    return result


def grades(out: Path) -> dict[tuple[str, str], tuple[str, float, tuple[tuple[str, str], ...]]]:
    """(student, exercise) -> (verdict, score, each test's verdict)."""
    export = json.loads((out / "grades.json").read_text())
    return {(s["student"], e): (c["verdict"], c.get("score"), tuple((t["name"], t["verdict"]) for t in c["tests"]))
            for s in export["students"] for e, c in s["exercises"].items()}


def same_grades_both_ways(tmp_path: Path, submissions: Path, exercises: Path, *extra: object,
                          timeout: float = 600) -> dict:
    with_server = batch(submissions, exercises, tmp_path / "on", True, *extra, timeout=timeout)
    without = batch(submissions, exercises, tmp_path / "off", False, *extra, timeout=timeout)
    found = grades(tmp_path / "on")
    assert found == grades(tmp_path / "off"), with_server.stdout + without.stdout
    return found


def test_the_bundled_class_gets_the_same_grades_with_the_fork_server_as_without(tmp_path: Path) -> None:
    found = same_grades_both_ways(tmp_path, ROOT / "examples" / "class", ROOT / "exercises", "--workers", 2)
    assert len(found) >= 40 and {v[0] for v in found.values()} >= {"passed", "wrong_answer", "timeout"}


def test_the_data_course_gets_the_same_grades_with_the_fork_server_as_without(tmp_path: Path,
                                                                             data_environment: object) -> None:
    class_folder = tmp_path / "class"
    handed_in = {}
    for number, reference in enumerate(sorted((DATA_COURSE / "reference").glob("*/*/*"))):
        exercise, verdict = reference.parent.parent.name, reference.parent.name
        student = f"s{number:02d}"
        (class_folder / student).mkdir(parents=True)
        shutil.copy(reference, class_folder / student / f"{exercise}{reference.suffix}")
        handed_in[(student, exercise)] = "passed" if verdict == "accepted" else verdict
    found = same_grades_both_ways(tmp_path, class_folder, DATA_COURSE / "exercises", "--workers", 2)
    assert {key: found[key][0] for key in handed_in} == handed_in


# Each student first looks for what an earlier submission on this worker could have left, then leaves it
# all: files in /tmp, /dev/shm and its own folder, module globals (numpy's too: the server loaded numpy),
# a process that outlives its test. Whichever runs second finds the first one's leftovers, if any.
PAIR = '''
import builtins, os, sys, time
import numpy

MARK = "fork-server-leftover"
ME = MARK + "-__STUDENT__"  # what this submission leaves is its own to see again


def probe():
    found = []
    for folder in ("/tmp", "/tmp/work", "/dev/shm", "."):
        try:
            names = os.listdir(folder)
        except OSError:  # not readable here (Landlock): not writable either
            continue
        for name in names:
            if MARK in name and ME not in name:
                found.append(folder + "/" + name)
    for module in (os, sys, builtins, numpy):
        if getattr(module, "leftover", ME) != ME:
            found.append(module.__name__ + ".leftover")
    found += [name for name in sys.modules if name.startswith(MARK) and name != ME]
    try:
        pids = os.listdir("/proc")
    except OSError:  # Landlock: /proc is not to be read (the batch's host looks instead)
        pids = []
    for pid in pids:
        if pid.isdigit():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as cmdline:
                    words = cmdline.read()
            except OSError:
                continue
            if MARK.encode() in words and ME.encode() not in words:
                found.append("process " + pid)
    leave()
    return found


def leave():
    written = 0
    for folder in ("/tmp", "/tmp/work", "/dev/shm", "."):
        try:  # what the layers let it write (not /tmp itself, under Landlock)
            with open(os.path.join(folder, ME + "-" + str(os.getpid())), "w") as file:
                file.write("x")
            written += 1
        except OSError:
            pass
    assert written >= 2  # its working folders and /dev/shm at least
    for module in (os, sys, builtins, numpy):
        module.leftover = ME
    sys.modules[ME] = sys
    if os.fork() == 0:  # a daemon, in a session of its own, holding nothing of ours
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time\\nwhile True: time.sleep(0.05)", ME])
        os._exit(0)
    time.sleep(0.2)


leave()  # while loading too: the harness's own process
'''


def test_nothing_of_one_submission_reaches_the_next_on_the_same_worker(tmp_path: Path,
                                                                      data_environment: object) -> None:
    course = tmp_path / "course"
    (course / "exercises").mkdir(parents=True)
    (course / "grader-course.yaml").write_text(f"environment:\n  requirements: {DATA_COURSE / 'requirements.txt'}\n")
    (course / "exercises" / "probe.yaml").write_text(
        "title: Probe\nkind: function\nentry: probe\nstatement: x\nlimits: {cpu: 2.0, memory: 512}\n"
        "tests:\n  - name: first\n    call: probe()\n    expect: []\n  - name: second\n    call: probe()\n"
        "    expect: []\n")
    for student in ("mallory", "trudy", "victor"):
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / "probe.py").write_text(PAIR.replace("__STUDENT__", student))
    result = batch(tmp_path / "class", course / "exercises", tmp_path / "out", True, "--workers", 1)
    found = grades(tmp_path / "out")
    assert {key: value[0] for key, value in found.items()} == {
        (student, "probe"): "passed" for student in ("mallory", "trudy", "victor")}, result.stdout
    assert not _processes_with("fork-server-leftover", ours_only=True)


PLANT_FONTS = """\
import os

import matplotlib.pyplot as plt


def probe():
    folder = plt.matplotlib.get_configdir()  # the server's font cache, as matplotlib remembers it
    try:
        with open(os.path.join(folder, "fontlist-planted.json"), "w") as planted:
            planted.write("{}")
    except OSError:
        return "refused"
    return "planted"
"""


def test_the_servers_font_cache_is_kept_where_no_submission_can_write(tmp_path: Path,
                                                                       data_environment: object) -> None:
    """matplotlib is loaded by the server with its font cache in the grader's cache folder, kept for the
    next server: a submission, which sees the folder's name, can neither write there nor leave a file."""
    from grader.cache import cache_dir

    course = tmp_path / "course"
    (course / "exercises").mkdir(parents=True)
    (course / "grader-course.yaml").write_text(f"environment:\n  requirements: {DATA_COURSE / 'requirements.txt'}\n")
    (course / "exercises" / "fonts.yaml").write_text(
        "title: Fonts\nkind: function\nentry: probe\nstatement: x\nlimits: {cpu: 4.0, memory: 1024}\n"
        "tests:\n  - name: plant\n    call: probe()\n    expect: refused\n")
    (tmp_path / "class" / "mallory").mkdir(parents=True)
    (tmp_path / "class" / "mallory" / "fonts.py").write_text(PLANT_FONTS)
    result = batch(tmp_path / "class", course / "exercises", tmp_path / "out", True, "--workers", 1)
    assert grades(tmp_path / "out")[("mallory", "fonts")][0] == "passed", result.stdout
    fonts = cache_dir() / "fork-server-matplotlib"
    assert any(fonts.glob("fontlist-*.json")) and not (fonts / "fontlist-planted.json").exists()


def _processes_with(marker: str, ours_only: bool = False) -> list[int]:
    """The processes whose command line holds `marker`; `ours_only`: descendants of this test process alone
    (what escaped comes back to it: tests/conftest.py), so that another test process's or another run's
    are not counted."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes() and (not ours_only or _ours(int(pid))):
                    found.append(int(pid))
            except OSError:
                pass
    return found


def _servers(marked: list[int]) -> list[int]:
    """The fork servers among `marked`: a sandbox the server forked inherits its command line, so a server is
    a marked process whose parent is not marked."""
    return [pid for pid in marked if _parent(pid) not in marked]


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat[stat.rindex(")") + 2:].split()[1])  # the field after the state


def _ours(pid: int) -> bool:
    while pid > 1:
        if pid == os.getpid():
            return True
        pid = _parent(pid)
    return False


SLOW_ADD = '''import time


def add(a, b):
    mark = time.process_time() + 0.4
    while time.process_time() < mark:
        pass
    return a + b
'''


def test_a_fork_server_killed_mid_batch_is_replaced_and_every_student_gets_a_verdict(tmp_path: Path) -> None:
    from tests.batch.classroom import write_course

    exercises = write_course(tmp_path)
    for number in range(8):
        (tmp_path / "class" / f"s{number}").mkdir(parents=True)
        (tmp_path / "class" / f"s{number}" / "add.py").write_text(f"# {number}\n{SLOW_ADD}")
    seen: set[int] = set()
    killed: list[int] = []
    done = threading.Event()

    def kill_the_first_server() -> None:
        while not done.is_set():
            servers = _servers(_processes_with("grader_fork_server", ours_only=True))
            seen.update(servers)
            if servers and not killed:
                time.sleep(1.0)  # a few submissions in
                os.kill(servers[0], signal.SIGKILL)
                killed.append(servers[0])
            time.sleep(0.05)

    watcher = threading.Thread(target=kill_the_first_server, daemon=True)
    watcher.start()
    try:
        result = batch(tmp_path / "class", exercises, tmp_path / "out", True, "--workers", 1, "--only", "add")
    finally:
        done.set()
        watcher.join()
    assert killed, f"no fork server was seen: {result.stdout[-2000:]}"
    assert len(seen) >= 2, f"the killed server was not replaced: {seen}"
    found = grades(tmp_path / "out")
    assert len(found) == 8 and {value[0] for value in found.values()} == {"passed"}, result.stdout


def test_a_sandbox_whose_server_dies_under_it_still_runs_its_tests() -> None:
    from grader.model import Limits
    from grader.sandbox.forks import ForkServer, ForkServerBackend
    from grader.sandbox.isolation import detect

    isolation = detect()
    server = ForkServer(isolation)
    backend = ForkServerBackend(isolation, server)
    setup = {"mode": "module", "source": "def add(a, b):\n    return a + b\n", "prelude": "", "test_setup": "",
             "entry": "add", "forbid": [], "modules": [], "name": "", "load_cpu": 2.0, "margin": 1.2}
    request = {"seq": 7, "call": "add(2, 3)", "stdin": "", "compare": "value", "cpu": 2.0, "margin": 1.2,
               "memory": 256 << 20, "output": 64 << 10}
    try:
        session = backend.start(Limits())
        assert session.load(setup, 10).data == {"loaded": True}
        first = server.pid
        os.kill(first, signal.SIGKILL)
        reply = session.run(request, 10)
        assert reply.failure == "" and '"value": 5' in str(reply.data), reply
        session.close()
        again = backend.start(Limits())
        assert again.load(setup, 10).data == {"loaded": True}
        assert server.pid not in (0, first)  # replaced
        assert "5" in str(again.run(request, 10).data)
        again.close()
    finally:
        server.close()


# ---------------------------------------------------------------- the hostile corpus, through a batch
HOSTILE = ROOT / "tests" / "hostile" / "submissions"
FILL = {"how": "plain", "burn": "1.1", "n": "3", "marker": "hostile-batch-leftover", "folder": "/tmp",
        "token": "0123456789abcdef", "course": "/nonexistent", "spec": "/nonexistent.yaml", "pid": "1",
        "name": "x", "tcp_port": "9", "udp_port": "9", "unix_path": "/nonexistent.sock", "abstract_name": "x"}


def _hostile_course(root: Path) -> Path:
    """One exercise per hostile submission: each of its functions that takes no argument, then square(3);
    one student hands it in."""
    exercises = root / "exercises"
    exercises.mkdir(parents=True)
    for path in sorted(HOSTILE.glob("*.py")):
        text = re.sub(r"\{([a-z_]+)\}", lambda m: FILL.get(m.group(1), m.group(0)), path.read_text())
        tree = ast.parse(text)
        calls = [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
                 and not node.args.args and not node.args.vararg and node.name != "square"]
        tests = "".join(f"  - name: {name}\n    call: {name}()\n    expect: 0\n" for name in calls)
        tests += "  - name: square(3)\n    call: square(3)\n    expect: 9\n"
        exercise = path.stem.replace("_", "-")
        (exercises / f"{exercise}.yaml").write_text(
            f"title: {exercise}\nkind: function\nentry: square\nstatement: x\n"
            f"limits: {{cpu: 1.0, memory: 256, output: 64}}\ntests:\n{tests}")
        student = root / "class" / "mallory"
        student.mkdir(parents=True, exist_ok=True)
        (student / f"{exercise}.py").write_text(text)
    return exercises


def test_the_hostile_corpus_gets_the_same_verdicts_through_a_batch_with_the_fork_server(tmp_path: Path) -> None:
    exercises = _hostile_course(tmp_path)
    found = same_grades_both_ways(tmp_path, tmp_path / "class", exercises, "--workers", 2, timeout=1200)
    assert len(found) == len(list(HOSTILE.glob("*.py")))
    assert {verdict for verdict, _, _ in found.values()} - {"passed"}  # the corpus does fail, the same way
    assert not _processes_with("hostile-batch-leftover", ours_only=True)
    # What each attack saw (its returned value, or its error's words), numbers aside (uids, pids, sizes);
    # a timeout's own words say how far past the limit it was stopped, which is the clock's business.
    seen = [_answers(tmp_path / out) for out in ("on", "off")]
    assert seen[0] == seen[1]


def _answers(out: Path) -> dict[tuple[str, str], str]:
    export = json.loads((out / "grades.json").read_text())
    return {(e, t["name"]): re.sub(r"\d+", "N", f"{t.get('actual')} | {t['feedback']}")
            for s in export["students"] for e, c in s["exercises"].items() for t in c["tests"]
            if t["verdict"] != "timeout"}
