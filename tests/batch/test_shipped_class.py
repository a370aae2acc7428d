"""A class of 60 students who hand in the shipped reference solutions (whose folder names are their
verdicts) to the real exercises, plus files that cannot be graded: a link to a system file, a huge file,
a file that is not UTF-8, a name in another style."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.batch.classroom import SHIPPED, write_reference_class
from tests.batch.conftest import batch, read_csv
from tests.conftest import EXERCISES


def test_a_class_of_shipped_references_gets_the_verdicts_their_folders_name(tmp_path: Path) -> None:
    root = tmp_path / "class"
    expected = write_reference_class(root, count=60)
    # Files that are not what they seem: each becomes a runtime_error that says why, never a crash.
    os.remove(root / "student00" / "count-queens.py")
    os.symlink("/etc/passwd", root / "student00" / "count-queens.py")
    (root / "student01" / "n-queens-ii.py").write_bytes(b"# " + b"x" * (1 << 20) + b"\n")
    (root / "student02" / "n-queens-ii.py").write_bytes("x = 'caf\u00e9'\n".encode("latin-1"))
    (root / "student04" / "count-queens.py").rename(root / "student04" / "Count_Queens.py")
    for student in ("student00", "student01", "student02"):
        exercise = "count-queens" if student == "student00" else "n-queens-ii"
        expected[(student, exercise)] = "runtime_error"

    out = tmp_path / "out"
    result = batch(root, "--exercises", EXERCISES, "--out", out, timeout=600)
    assert result.returncode == 0, result.stderr
    export = json.loads((out / "grades.json").read_text())
    found = {(s["student"], e): cell for s in export["students"] for e, cell in s["exercises"].items()}
    assert {key: cell["verdict"] for key, cell in found.items()} == {
        key: "passed" if verdict == "accepted" else verdict for key, verdict in expected.items()}
    assert [e["id"] for e in export["exercises"]] == sorted(SHIPPED)

    feedback = {key: found[key]["tests"][0]["feedback"] for key in
                [("student00", "count-queens"), ("student01", "n-queens-ii"), ("student02", "n-queens-ii")]}
    assert "symbolic link to outside the student's folder" in feedback[("student00", "count-queens")]
    assert "the limit is 1048576" in feedback[("student01", "n-queens-ii")]
    assert "not UTF-8" in feedback[("student02", "n-queens-ii")]
    assert "root:" not in (out / "grades.json").read_text()  # the linked file was never read
    assert found[("student04", "count-queens")]["file"] == "student04/Count_Queens.py"

    rows = read_csv(out / "gradebook.csv")
    maximum = {e["id"]: e["max_score"] for e in export["exercises"]}
    for row in rows:
        for exercise in SHIPPED:
            verdict = expected[(row["student"], exercise)]
            if verdict == "accepted":
                assert float(row[exercise]) == maximum[exercise], (row["student"], exercise)
            elif verdict in ("missing", "runtime_error", "syntax_error"):
                assert float(row[exercise]) < maximum[exercise]
        assert float(row["total"]) == sum(float(row[e]) for e in SHIPPED)
