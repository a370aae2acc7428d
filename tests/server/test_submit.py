"""`grader submit`: the terminal report and exit status of `grader check`, from the server's grading."""

from __future__ import annotations

import re

from tests.conftest import run_cli
from tests.server.conftest import ADD, WRONG, Served


def comparable(text: str) -> list[str]:
    """The report without what differs between two gradings: the label line, the sandbox's uid, CPU times."""
    lines = [re.sub(r"\d+\.\d+ / ", "_ / ", line) for line in text.splitlines()[1:]]
    return [re.sub(r"uid \d+", "uid _", line) for line in lines]


def test_grader_submit_prints_the_report_and_exit_status_of_grader_check(served: Served) -> None:
    alice = served.token("alice")
    served.start("--workers", "1")
    for code, status in ((WRONG, 1), (ADD, 0)):
        path = served.root / "add.py"
        path.write_text(code)
        wide = {"COLUMNS": "250"}  # the label line holds tmp_path, longer in a worker of `pytest -n 2`: not wrapped
        submitted = run_cli("submit", "add", path, "--server", served.url, "--token", alice, env=wide)
        checked = run_cli("check", "add", path, "--exercises", served.exercises, env=wide)
        assert submitted.returncode == checked.returncode == status, submitted.stderr
        assert comparable(submitted.stdout) == comparable(checked.stdout)
        assert submitted.stdout.splitlines()[0] == "add · alice/add.py"
        assert "submission" in submitted.stderr  # the progress line
        from_variable = run_cli("submit", "add", path, "--server", served.url, env={"GRADER_TOKEN": alice})
        assert from_variable.returncode == status


def test_grader_submit_says_why_the_server_refused(served: Served) -> None:
    served.start("--workers", "1")
    path = served.root / "add.py"
    path.write_text(ADD)
    refused = run_cli("submit", "add", path, "--server", served.url, "--token", "gt_wrong")
    assert refused.returncode == 2 and "401" in refused.stderr and "Traceback" not in refused.stderr
    unknown = run_cli("submit", "nope", path, "--server", served.url, "--token", served.token("bob"))
    assert unknown.returncode == 2 and "no exercise 'nope'" in unknown.stderr
    served.stop()
    gone = run_cli("submit", "add", path, "--server", served.url, "--token", served.token("bob"))
    assert gone.returncode == 2 and "cannot reach" in gone.stderr
