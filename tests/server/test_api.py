"""The JSON API of a real `grader serve` process, over loopback HTTP: who may submit and see what, the
refusals (401, 404, 413, 422, 429 with Retry-After), reports as `grader check` gives them, the gradebook."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import jsonschema

from grader.server.client import multipart
from tests.conftest import ROOT, run_cli
from tests.server.conftest import ADD, WRONG, Served

SCHEMA = json.loads((ROOT / "grader" / "schemas" / "server-api.schema.json").read_text())
REPORT_SCHEMA = json.loads((ROOT / "grader" / "schemas" / "report.schema.json").read_text())


def valid(body: object, definition: str) -> None:
    schema = {**SCHEMA, "$ref": f"#/$defs/{definition}"}
    jsonschema.validate(body, schema)


def test_a_submission_is_graded_and_its_report_is_the_one_grader_check_gives(served: Served) -> None:
    alice = served.token("alice")
    served.start("--workers", "1")
    health = served.call("GET", "/api/health")
    assert health.status == 200 and health.body["status"] == "ok"
    valid(health.body, "health")

    sent = served.submit(alice, "add", WRONG)
    assert sent.status == 202 and sent.body["status"] == "queued", sent.body
    valid(sent.body, "accepted")
    graded = served.wait(alice, sent.body["id"])
    valid(graded, "submission")
    jsonschema.validate(graded["report"], REPORT_SCHEMA)
    assert graded["student"] == "alice" and graded["exercise"] == "add" and graded["late"] is False

    (served.root / "add.py").write_text(WRONG)
    checked = run_cli("check", "add", served.root / "add.py", "--exercises", served.exercises, "--format", "json",
                      "--all")
    expected = checked.json()
    assert [(t["name"], t["verdict"], t["points"]) for t in graded["report"]["tests"]] == \
        [(t["name"], t["verdict"], t["points"]) for t in expected["tests"]]
    assert graded["report"]["verdict"] == expected["verdict"] == "wrong_answer"
    hidden = [t for t in graded["report"]["tests"] if t["hidden"]]
    assert hidden and all("expected" not in t and "actual" not in t for t in hidden)  # as a student sees it
    assert "staff_details" not in graded["report"]


def test_without_a_valid_token_every_call_is_refused_with_401(served: Served) -> None:
    served.start("--workers", "1")
    for token in (None, "gt_not-a-token", "x" * 5000):
        answer = served.submit(token, "add", ADD)  # type: ignore[arg-type]
        assert answer.status == 401 and answer.headers.get("www-authenticate") == "Bearer"
        assert served.call("GET", "/api/submissions", token).status == 401
        assert served.call("GET", "/api/submissions/1", token).status == 401


def test_refusals_name_their_reason(served: Served) -> None:
    alice = served.token("alice")
    (served.root / "grader-course.yaml").write_text("rules:\n  rate: {submissions: 2, per: 1h}\n")
    served.start("--workers", "1", "--max-upload", "1")
    unknown = served.submit(alice, "no-such-exercise", ADD)
    assert unknown.status == 404 and "no-such-exercise" in unknown.body["error"]
    wrong_kind = served.submit(alice, "add", ADD, name="add.exe")
    assert wrong_kind.status == 422 and ".exe" in wrong_kind.body["error"]
    missing = served.call("POST", "/api/submissions", alice, *multipart({"exercise": "add"}, "other", "a.py", b"x"))
    assert missing.status == 422
    huge = served.submit(alice, "add", "# " + "x" * 2000 + "\n" + ADD)
    assert huge.status == 413 and "limit" in huge.body["error"]
    enormous = served.submit(alice, "add", b"#" * (200 * 1024))  # refused by its Content-Length, unread
    assert enormous.status == 413
    assert served.submit(alice, "add", ADD).status == 202
    assert served.submit(alice, "add", ADD).status == 202
    third = served.submit(alice, "add", ADD)
    assert third.status == 429 and 3500 <= int(third.headers["retry-after"]) <= 3600, third.headers
    assert served.submit(alice, "shout", "print(input().upper())\n").status == 202  # per exercise
    staff = served.token("prof", staff=True)
    assert served.submit(staff, "add", ADD).status == 202  # staff are never rate-limited


def test_a_student_sees_only_their_own_and_staff_see_everyone(served: Served) -> None:
    alice, bob, staff = served.token("alice"), served.token("bob"), served.token("prof", staff=True)
    served.start("--workers", "1")
    mine = served.submit(alice, "add", ADD).body["id"]
    theirs = served.submit(bob, "add", WRONG).body["id"]
    served.wait(alice, mine)
    served.wait(bob, theirs)
    assert served.call("GET", f"/api/submissions/{theirs}", alice).status == 404
    listed = served.call("GET", "/api/submissions?exercise=add", alice).body["submissions"]
    assert [s["id"] for s in listed] == [mine]
    everyone = served.call("GET", "/api/submissions", staff).body
    valid(everyone, "list")
    assert {s["student"] for s in everyone["submissions"]} == {"alice", "bob"}
    only_bob = served.call("GET", "/api/submissions?student=bob", staff).body["submissions"]
    assert [s["id"] for s in only_bob] == [theirs]
    assert served.call("GET", f"/api/submissions/{theirs}", staff).body["report"]["staff_details"]

    assert served.call("GET", "/api/gradebook", alice).status == 403
    book = served.call("GET", "/api/gradebook", staff)
    assert book.status == 200
    totals = {s["student"]: s["total"] for s in book.body["students"]}
    assert totals == {"alice": 4.0, "bob": 0.0}
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO(served.call("GET", "/api/gradebook?format=csv",
                                                                             staff).body))}
    assert rows["alice"]["add"] == "4" and rows["bob"]["add"] == "0"
    assert served.call("GET", "/api/gradebook?format=plain", staff).status == 200


def test_tokens_are_stored_hashed_and_a_roster_gets_one_each_as_csv(served: Served) -> None:
    roster = served.root / "roster.csv"
    roster.write_text("folder,name\nalice,Alice A\nbob,Bob B\n")
    result = run_cli("serve", "tokens", "--roster", roster, "--state", served.state)
    assert result.returncode == 0, result.stderr
    issued = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [row["student"] for row in issued] == ["alice", "bob"]
    assert len({row["token"] for row in issued}) == 2
    stored = b"".join(p.read_bytes() for p in served.state.iterdir() if p.is_file())
    assert all(row["token"].encode() not in stored for row in issued)
    with sqlite3.connect(served.state / "state.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM tokens").fetchone()[0] == 2
    served.start("--workers", "1")
    assert served.submit(issued[1]["token"], "add", ADD).status == 202


def test_a_bad_command_line_gets_usage_and_status_2(tmp_path: Path) -> None:
    assert run_cli("serve").returncode == 2
    assert run_cli("serve", "token", "--state", tmp_path).returncode == 2
    result = run_cli("submit", "add", tmp_path / "nothing.py", "--server", "http://127.0.0.1:9")
    assert result.returncode == 2 and "token" in result.stderr
    result = run_cli("serve", "--state", tmp_path, "--database", "postgresql://nobody@127.0.0.1:9/none")
    assert result.returncode == 2 and "cannot connect to the database" in result.stderr


def test_a_file_name_is_never_a_path_and_no_folder_is_listed(served: Served) -> None:
    alice = served.token("alice")
    served.start("--workers", "1")
    sent = served.submit(alice, "add", ADD, name="../../../../tmp/evil<script>.py")
    assert sent.status == 202
    graded = served.wait(alice, sent.body["id"])
    assert graded["file"] == "../../../../tmp/evil<script>.py"  # shown as sent, as text
    stored = sorted(p.relative_to(served.state) for p in (served.state / "uploads").rglob("*") if p.is_file())
    assert stored == [Path("uploads") / str(sent.body["id"]) / "add.py"]
    for path in ("/uploads/", f"/uploads/{sent.body['id']}/add.py", "/state.sqlite", "/api/"):
        assert served.call("GET", path, alice).status == 404
