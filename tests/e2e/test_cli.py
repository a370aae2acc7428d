"""End to end through the CLI: every shipped reference and every example submission gets its verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXERCISES, REFERENCE, SUBMISSIONS, run_cli, templated

EXIT_FOR = {"passed": 0}


def cases(root: Path, verdicts: tuple[str, ...] | None = None) -> list[tuple[str, str, Path]]:
    """(exercise, expected verdict, file) for root/<exercise>/<verdict>/<file>."""
    found = []
    for path in sorted(root.glob("*/*/*")):
        if templated(path):
            continue
        if path.suffix in (".py", ".txt") and (verdicts is None or path.parent.name in verdicts):
            found.append((path.parent.parent.name, path.parent.name, path))
    return found


def case_id(case: tuple[str, str, Path]) -> str:
    return f"{case[0]}/{case[1]}/{case[2].name}"


ACCEPTED = cases(REFERENCE, ("accepted",))


def test_every_exercise_has_accepted_references() -> None:
    ids = sorted(p.stem for p in EXERCISES.glob("*.yaml"))
    assert len(ids) == 12  # the N-Queens family, with any-queens, queen-board, board-files, blocked-queens
    assert sorted({exercise for exercise, _, _ in ACCEPTED}) == [i for i in ids if i != "blocked-queens"]


@pytest.mark.parametrize("case", ACCEPTED, ids=case_id)
def test_accepted_reference_passes_every_test(case: tuple[str, str, Path]) -> None:
    exercise, _, path = case
    result = run_cli("check", exercise, path, "--format", "json")
    report = result.json()
    assert [t["verdict"] for t in report["tests"]] == ["passed"] * len(report["tests"]), report
    assert (report["verdict"], result.returncode) == ("passed", 0)
    assert report["score"] == report["max_score"] > 0


@pytest.mark.parametrize("case", cases(SUBMISSIONS), ids=case_id)
def test_example_submission_gets_its_verdict(case: tuple[str, str, Path]) -> None:
    exercise, verdict, path = case
    result = run_cli("check", exercise, path, "--format", "json")
    report = result.json()
    assert report["verdict"] == verdict, report
    assert result.returncode == 1
    assert report["score"] < report["max_score"]
