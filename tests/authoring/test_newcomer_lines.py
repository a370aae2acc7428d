"""What a newcomer reads first: outside a course, the course a command used in one short line (none for
`list`, whose title names it); counts with their nouns; `batch --help` shows `batch show`."""

from __future__ import annotations

from pathlib import Path

from grader.words import count
from tests.conftest import run_cli


def test_outside_a_course_the_course_line_is_short_and_list_needs_none(tmp_path: Path) -> None:
    env = {"GRADER_EXERCISES": "", "GRADER_CACHE": str(tmp_path / "cache")}
    shown = run_cli("show", "count-queens", cwd=tmp_path, env=env)
    assert shown.returncode == 0, shown.stderr
    [line] = shown.stderr.splitlines()
    assert line.startswith("course: the grader's bundled course") and len(line) <= 100, line
    listed = run_cli("list", cwd=tmp_path, env=env)
    assert listed.returncode == 0 and "course:" not in listed.stderr and "Exercises in" in listed.stdout


def test_counts_go_with_their_noun() -> None:
    assert [count(1, "exercise"), count(2, "exercise"), count(1, "review"), count(0, "student")] == \
        ["1 exercise", "2 exercises", "1 review", "0 students"]


def test_batch_help_names_batch_show() -> None:
    helped = run_cli("batch", "--help")
    assert "grader batch show STUDENT [EXERCISE]" in helped.stdout
