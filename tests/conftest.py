"""Shared fixtures: run the real CLI in a subprocess, write throwaway exercises, a private cache, and this
test process's own processes (the suite runs in several processes at once: `pytest -n 2`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"
REFERENCE = ROOT / "reference"


def templated(reference: Path) -> bool:
    """A reference of an exercise with `params:`: a template rendered per variant, never run as written
    (tests/variants and `grader validate --variants` prove those)."""
    spec = reference.parents[3] / "exercises" / f"{reference.parent.parent.name}.yaml"
    return spec.is_file() and "\nparams:" in spec.read_text(encoding="utf-8")
SUBMISSIONS = ROOT / "tests" / "e2e" / "submissions"


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Expected values are computed once per test session into a cache of its own."""
    cache = tmp_path_factory.mktemp("grader-cache")
    os.environ["GRADER_CACHE"] = str(cache)
    return cache


@pytest.fixture(scope="session", autouse=True)
def orphans_come_back_here() -> None:
    """This test process is a child subreaper: what a test started and lost (a daemon, a process that
    outlived its grader) is re-parented here, not to init, so a search for leftovers looks at this
    process's own tree (`our_processes`), never at the machine's, where another test process or another
    run has processes of its own."""
    if sys.platform == "linux":
        from grader.sandbox import linux

        linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)


@dataclass(frozen=True)
class Process:
    pid: int
    uid: int
    cmdline: str  # its words joined by spaces


def our_processes() -> list[Process]:
    """The live processes below this test process (zombies left out: they run nothing), orphans included
    (see `orphans_come_back_here`)."""
    parent_of: dict[int, int] = {}
    alive: dict[int, Process] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
            uid = os.stat(f"/proc/{name}").st_uid
            words = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile
        state, parent = stat[stat.rindex(")") + 2:].split()[:2]
        parent_of[int(name)] = int(parent)
        if state != "Z":
            alive[int(name)] = Process(int(name), uid, words.strip())
    ours, me = [], os.getpid()
    for pid, process in alive.items():
        ancestor, steps = parent_of.get(pid, 0), len(parent_of)  # bounded: pids read at different moments
        while ancestor > 1 and ancestor != me and steps:
            ancestor, steps = parent_of.get(ancestor, 0), steps - 1
        if ancestor == me:
            ours.append(process)
    return ours


@dataclass
class Completed:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


def run_cli(*args: object, cwd: Path | None = None, timeout: float = 120, env: dict | None = None) -> Completed:
    """`python -m grader ARGS` as a real subprocess, as a user would run it."""
    process = subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        capture_output=True, text=True, timeout=timeout, cwd=cwd, env={**os.environ, **(env or {})},
    )
    return Completed(process.returncode, process.stdout, process.stderr)


@pytest.fixture
def course(tmp_path: Path):
    """A course folder of one's own: course.write('id', yaml) -> path; course.reference('id', 'file.py', code)."""

    class Course:
        root = tmp_path
        exercises = tmp_path / "exercises"

        def write(self, exercise_id: str, text: str) -> Path:
            self.exercises.mkdir(exist_ok=True)
            path = self.exercises / f"{exercise_id}.yaml"
            path.write_text(text)
            return path

        def reference(self, exercise_id: str, name: str, code: str, verdict: str = "accepted") -> Path:
            folder = tmp_path / "reference" / exercise_id / verdict
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(code)
            return folder / name

        def submission(self, name: str, code: str) -> Path:
            path = tmp_path / "submissions" / name
            path.parent.mkdir(exist_ok=True)
            path.write_text(code)
            return path

    return Course()


DATA_COURSE = ROOT / "examples" / "data-course"


@pytest.fixture(scope="session")
def data_environment():
    """The data course's environment (numpy, pandas, matplotlib), built once per session: the build itself
    is kept across sessions in the environments folder, keyed by its list and the interpreter."""
    from grader.environment import environment_of_course

    built = run_cli("env", "build", "--exercises", DATA_COURSE / "exercises", timeout=900)
    assert built.returncode == 0, built.stdout + built.stderr
    environment = environment_of_course(DATA_COURSE / "exercises")
    assert environment is not None and environment.built
    return environment


# The files that take longest start first: under `-n 2 --dist loadfile` a file runs whole in one process,
# and a long file handed out last would leave the other process idle at the end.
LONGEST_FIRST = ("tests/differential/test_one_grade.py", "tests/platforms/", "tests/a11y/", "tests/lti/",
                 "tests/batch/test_fork_server.py", "tests/environment/")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        where = Path(str(item.path)).relative_to(config.rootpath).as_posix()
        return next((i for i, prefix in enumerate(LONGEST_FIRST) if where.startswith(prefix)), len(LONGEST_FIRST))
    items.sort(key=rank)  # stable: each file's own order is kept
