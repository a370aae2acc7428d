"""Roles as data: a token's role is its level in the tokens table; every staff token issued before TAs were
told apart (level 1) is an instructor's, a level no grader wrote reads as a student's, never as staff."""

from __future__ import annotations

from pathlib import Path

from grader.server import tokens
from grader.server.roles import Caller, Role
from grader.server.state import State
from tests.conftest import run_cli


def test_each_role_round_trips_and_an_old_staff_token_is_an_instructor_s(tmp_path: Path) -> None:
    state = State(tmp_path)
    issued = {role: tokens.issue(state, f"someone-{role}", role) for role in Role}
    assert {role: tokens.caller_of(state, token) for role, token in issued.items()} == {
        role: Caller(f"someone-{role}", role) for role in Role}
    state.add_token(tokens.digest("gt_old"), "prof", 1)  # what `--staff` always wrote
    state.add_token(tokens.digest("gt_forged"), "mallory", 7)  # no grader writes 7
    assert tokens.caller_of(state, "gt_old") == Caller("prof", Role.INSTRUCTOR)
    assert tokens.caller_of(state, "gt_forged") == Caller("mallory", Role.STUDENT)
    assert [Caller("x", role).staff for role in Role] == [True, True, False]
    assert state.students() == ["mallory", f"someone-{Role.STUDENT}"]  # a student is who is no staff
    state.close()


def test_a_token_is_for_a_ta_or_an_instructor_not_both(tmp_path: Path) -> None:
    both = run_cli("serve", "token", "kim", "--ta", "--staff", "--state", tmp_path)
    assert both.returncode == 2 and "not allowed with" in both.stderr
    ta = run_cli("serve", "token", "kim", "--ta", "--state", tmp_path)
    assert ta.returncode == 0
    state = State(tmp_path)
    assert tokens.caller_of(state, ta.stdout.strip()) == Caller("kim", Role.TA)
    state.close()
