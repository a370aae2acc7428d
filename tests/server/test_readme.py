"""README's "For a course's own server": its commands, run as written in a folder of their own (the port
made a free one), serve the bundled course and grade a submission; the rules example of docs/servers.md
(where the README sends a course's staff) loads."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from grader.server.rules import load_rules
from tests.conftest import REFERENCE, ROOT

SECTION = (ROOT / "README.md").read_text().split("<!-- serve: begin -->")[1].split("<!-- serve: end -->")[0]
COMMANDS = [line.split("  #")[0].strip() for line in re.search(r"```bash\n(.*?)```", SECTION, re.S)[1].splitlines()]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_readme_commands_serve_the_course_and_grade_a_submission(tmp_path: Path) -> None:
    port = str(free_port())
    commands = [c.replace("8000", port) for c in COMMANDS]
    serve = next(c for c in commands if c.startswith("grader serve --state"))
    before, after = commands[:commands.index(serve)], commands[commands.index(serve) + 1:]
    (tmp_path / "roster.csv").write_text("folder,name\nalice,Alice\nbob,Bob\n")
    shutil.copy(REFERENCE / "count-queens" / "accepted" / "bitmask.py", tmp_path / "count-queens.py")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("GRADER_EXERCISES", None)  # the bundled course: the folder holds none of its own

    def bash(lines: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(lines)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    first = bash(before)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "tokens.csv").read_text().splitlines()[0] == "student,token"
    server = subprocess.Popen(["bash", "-c", f"exec {serve}"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None and f":{port} " in server.stdout.readline()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=30) as health:
            assert health.status == 200
        started = time.monotonic()
        rest = bash(after)
        assert rest.returncode == 0, rest.stdout + rest.stderr
        assert "Score" in rest.stdout and "passed" in rest.stdout, rest.stdout
        assert time.monotonic() - started < 300
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_servers_page_rules_example_loads(tmp_path: Path) -> None:
    example = re.search(r"```yaml\n(rules:.*?)```", (ROOT / "docs" / "servers.md").read_text(), re.S)[1]  # type: ignore[index]
    (tmp_path / "grader-course.yaml").write_text(example)
    rules = load_rules(tmp_path / "grader-course.yaml")
    assert rules.of("count-queens").counts == "best" and rules.default.rate is not None
    assert rules.deadline_of("alice", "count-queens") > rules.deadline_of("bob", "count-queens")  # type: ignore[operator]
