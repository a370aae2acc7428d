"""`grader serve backup|restore|verify`: a snapshot taken while the server serves restores, into fresh
folders (and a fresh PostgreSQL database), to a server whose gradebook is the same byte for byte."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.server.conftest import ADD, WRONG, Served
from tests.server.test_postgres import database  # noqa: F401 - the throwaway PostgreSQL cluster fixture


def _graded_class(served: Served, *database: str) -> str:
    for who in ("ta", "alice", "bob", "carol"):  # issued where the server keeps its state
        made = run_cli("serve", "token", who, "--state", served.state, *database, *(("--staff",) if who == "ta" else ()))
        assert made.returncode == 0, made.stderr
        served.tokens[who] = made.stdout.strip()
    staff = served.tokens["ta"]
    for student, code in (("alice", ADD), ("bob", WRONG), ("carol", ADD)):
        number = served.submit(served.token(student), "add", code).body["id"]
        served.wait(served.token(student), number)
    return staff


def _gradebook(served: Served, staff: str) -> str:
    answer = served.call("GET", "/api/gradebook?format=csv", staff)
    assert answer.status == 200, answer.body
    return str(answer.body)


def test_a_snapshot_taken_while_serving_restores_to_the_same_gradebook(served: Served, tmp_path: Path) -> None:
    served.start("--workers", "1")
    staff = _graded_class(served)
    before = _gradebook(served, staff)
    snapshot = tmp_path / "snapshot"
    made = run_cli("serve", "backup", snapshot, "--state", served.state, "--exercises", served.exercises)
    assert made.returncode == 0, made.stderr
    served.stop()
    manifest = json.loads((snapshot / "manifest.json").read_text())
    assert manifest["database"] == "sqlite" and any(name.startswith("uploads/") for name in manifest["files"])

    assert run_cli("serve", "verify", snapshot).returncode == 0
    shutil.rmtree(served.state)  # the volume is gone
    restored = run_cli("serve", "restore", snapshot, "--state", served.state, "--course", tmp_path / "course")
    assert restored.returncode == 0, restored.stderr
    again = Served(tmp_path, served.state, tmp_path / "course" / "exercises")
    again.tokens = served.tokens  # the tokens are in the restored database
    again.start("--workers", "1")
    try:
        assert _gradebook(again, staff) == before
    finally:
        again.stop()

    # Nothing is overwritten: not a state in use, not a snapshot.
    refused = run_cli("serve", "restore", snapshot, "--state", served.state)
    assert refused.returncode == 2 and "not empty" in refused.stderr
    made = run_cli("serve", "backup", snapshot, "--state", served.state, "--exercises", served.exercises)
    assert made.returncode == 2 and "not empty" in made.stderr
    # A hand-in changed since the backup is named, and a restore then writes nothing.
    next(p for p in (snapshot / "uploads").rglob("*.py")).write_text(ADD + "# changed\n")
    checked = run_cli("serve", "verify", snapshot)
    assert checked.returncode == 2 and "changed since the backup" in checked.stderr
    refused = run_cli("serve", "restore", snapshot, "--state", tmp_path / "new-state")
    assert refused.returncode == 2 and not (tmp_path / "new-state").exists()
    assert "Traceback" not in checked.stderr + refused.stderr


@pytest.mark.parametrize("manifest", ["", "[]", '{"format": 99, "files": {}}', '{"format": 1, "files": 3}'])
def test_a_hostile_manifest_is_refused_plainly(tmp_path: Path, manifest: str) -> None:
    (tmp_path / "manifest.json").write_text(manifest)
    checked = run_cli("serve", "verify", tmp_path)
    assert checked.returncode == 2 and "Traceback" not in checked.stderr, checked.stderr


def test_a_postgres_snapshot_restores_into_an_empty_database(served: Served, tmp_path: Path,
                                                             database: str) -> None:  # noqa: F811
    served.start("--workers", "1", "--database", database)
    staff = _graded_class(served, "--database", database)
    before = _gradebook(served, staff)
    snapshot = tmp_path / "snapshot"
    made = run_cli("serve", "backup", snapshot, "--state", served.state, "--database", database,
                   "--exercises", served.exercises)
    assert made.returncode == 0, made.stderr
    served.stop()
    # As a deployment's container runs it: the database from $GRADER_DATABASE, as for the other actions.
    assert run_cli("serve", "verify", snapshot, env={"GRADER_DATABASE": database}).returncode == 0
    fresh = database.replace("/postgres?", "/restored?")
    import psycopg

    with psycopg.connect(database, autocommit=True) as connection:
        connection.execute("CREATE DATABASE restored")
    refused = run_cli("serve", "restore", snapshot, "--state", tmp_path / "s2", "--database", database)
    assert refused.returncode == 2 and "already has tables" in refused.stderr
    restored = run_cli("serve", "restore", snapshot, "--state", tmp_path / "s2", "--database", fresh)
    assert restored.returncode == 0, restored.stderr
    again = Served(tmp_path, tmp_path / "s2", served.exercises)
    again.start("--workers", "1", "--database", fresh)
    try:
        assert _gradebook(again, staff) == before
    finally:
        again.stop()


def test_an_upgrade_takes_a_snapshot_before_it_migrates_and_a_newer_schema_is_refused(served: Served) -> None:
    import sqlite3

    from grader.server.state import DATABASE, MIGRATIONS

    served.state.mkdir()
    old = sqlite3.connect(served.state / DATABASE)
    for statements in MIGRATIONS[:-1]:  # a database as the grader before the last migration left it
        for statement in statements:
            old.execute(statement)
    old.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
    old.commit()
    old.close()
    served.start("--workers", "1")
    served.stop()
    (saved,) = (served.state / "backups").iterdir()
    assert saved.name.startswith(f"before-schema-{len(MIGRATIONS)}-")
    assert run_cli("serve", "verify", saved).returncode == 0

    newer = sqlite3.connect(served.state / DATABASE)
    newer.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    newer.commit()
    newer.close()
    refused = run_cli("serve", "--state", served.state, "--exercises", served.exercises, "--port", "0")
    assert refused.returncode == 2 and "newer grader" in refused.stderr and "Traceback" not in refused.stderr
