"""`grader submit` as a student uses it all term: the server and token stored once by `grader login` (or
$GRADER_SERVER), a refusal said plainly with its own exit status, and the score that counts after the late
rule shown where the score is."""

from __future__ import annotations

import datetime as dt
import json
import re
import stat
import time
from pathlib import Path

from tests.conftest import run_cli
from tests.server.conftest import ADD, Served

DAY = 86400
NO_LOGIN = {"GRADER_TOKEN": "", "GRADER_SERVER": ""}


def stamp(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def test_grader_login_stores_the_server_with_the_token_for_the_user_alone(served: Served, tmp_path: Path) -> None:
    served.start("--workers", "1")
    alice = served.token("alice")
    config = {**NO_LOGIN, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    path = served.root / "add.py"
    path.write_text(ADD)
    without = run_cli("submit", "add", path, env=config)
    assert without.returncode == 2 and "grader login --server URL" in without.stderr

    logged_in = run_cli("login", "--server", served.url, "--token", alice, env=config)
    assert logged_in.returncode == 0, logged_in.stderr
    stored = tmp_path / "config" / "grader" / "login.json"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert json.loads(stored.read_text()) == {"server": served.url, "token": alice}
    submitted = run_cli("submit", "add", path, env=config)
    assert submitted.returncode == 0, submitted.stderr

    from_variable = run_cli("submit", "add", path, env={**NO_LOGIN, "GRADER_SERVER": served.url, "GRADER_TOKEN": alice,
                                                         "XDG_CONFIG_HOME": str(tmp_path / "nobody")})
    assert from_variable.returncode == 0, from_variable.stderr


def test_a_rate_limit_and_a_closed_deadline_each_have_a_plain_message_and_their_own_status(served: Served) -> None:
    now = time.time()
    (served.root / "grader-course.yaml").write_text(f"""\
rules:
  rate: {{submissions: 1, per: 1h}}
  exercises:
    shout:
      deadline: {stamp(now - 3 * DAY)}
      late: {{penalty: 10, per: day, cutoff: {stamp(now - DAY)}}}
""")
    bob = served.token("bob")
    served.start("--workers", "1")
    path = served.root / "add.py"
    path.write_text(ADD)
    args = ("--server", served.url, "--token", bob)
    assert run_cli("submit", "add", path, *args, env=NO_LOGIN).returncode == 0
    again = run_cli("submit", "add", path, *args, env=NO_LOGIN)
    assert again.returncode == 5, again.stderr
    assert "not taken, too many submissions" in again.stderr and re.search(r"try again in \d+ s", again.stderr)
    assert "usage:" not in again.stderr

    shout = served.root / "shout.py"
    shout.write_text("print(input().upper())\n")
    closed = run_cli("submit", "shout", shout, *args, env=NO_LOGIN)
    assert closed.returncode == 6, closed.stderr
    assert "not taken, the deadline is past" in closed.stderr and "usage:" not in closed.stderr


def test_a_late_hand_in_shows_the_score_that_counts(served: Served) -> None:
    now = time.time()
    (served.root / "grader-course.yaml").write_text(f"""\
rules:
  deadline: {stamp(now - 1.5 * DAY)}
  late: {{penalty: 10, per: day, cutoff: {stamp(now + 2 * DAY)}}}
""")
    carol = served.token("carol")
    served.start("--workers", "1")
    path = served.root / "add.py"
    path.write_text(ADD)
    shown = run_cli("submit", "add", path, "--server", served.url, "--token", carol, env=NO_LOGIN)
    assert shown.returncode == 0, shown.stderr
    graded = re.search(r"graded (\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)\)", shown.stdout)
    assert graded, shown.stdout
    counted = float(graded[1]) * 0.8  # two days started: 20 % off
    assert f"Submitted late: 20 % off. The score that counts: {counted:g}/{graded[2]}" in shown.stdout
    as_json = run_cli("submit", "add", path, "--server", served.url, "--token", carol, "--format", "json",
                      env=NO_LOGIN)
    assert json.loads(as_json.stdout)["counted_score"] == round(counted, 2)

