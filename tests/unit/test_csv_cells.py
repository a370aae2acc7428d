"""Every CSV the grader writes (gradebooks, LMS gradebooks, analytics, the audit, the tokens) goes through one
cell rule: no cell, nor any part of one a spreadsheet may split off (after , ; | a tab or a line break),
starts a formula; controls are escaped; numbers stay numbers."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from grader.outputs.cells import cell, csv_text

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ["=1+1", "x;=cmd|' /C calc'!A0", "+SUM(A1)", "-2+3", "@SUM(A1)", "a|=b", "a,=b", "\t=1", " =1",
           "a\r=b", "line\n=2", "\x1b[31mred", "bi\u202edi", "O'Brien, Ann", "alice"]


def safe(text: str) -> bool:
    """True when no part of `text` a spreadsheet may split off starts a formula (a number is no formula)."""
    if re.fullmatch(r"-?\d+(\.\d+)?", text):
        return True
    return not re.search(r"(?:^|[,;\t|\r\n])\s*[=+\-@]", text) and "\x1b" not in text and "\u202e" not in text


def cells_of(text: str) -> list[str]:
    return [value for row in csv.reader(io.StringIO(text)) for value in row]


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_a_hostile_cell_is_made_inert(value: str) -> None:
    assert safe(cell(value)), cell(value)
    (written,) = cells_of(csv_text([[value]]))
    assert safe(written) and written.lstrip("'").endswith(cell(value).lstrip("'")[-1:])


def test_numbers_stay_numbers_and_plain_text_stays_as_it_is() -> None:
    assert [cell(v) for v in (-1, 2.5, 0, None, "alice", "O'Brien, Ann")] == ["-1", "2.5", "0", "", "alice",
                                                                             "O'Brien, Ann"]


def test_only_the_cell_rule_writes_csv() -> None:
    writers = [str(path.relative_to(ROOT)) for path in (ROOT / "grader").rglob("*.py")
               if re.search(r"csv\.(writer|DictWriter)\(|\.writerows?\(", path.read_text(encoding="utf-8"))]
    assert writers == ["grader/outputs/cells.py"]


def test_the_audit_csv_of_an_lms_login_holds_no_formula() -> None:
    from grader.server.reviews import AUDIT_FIELDS, audit_csv

    rows = [dict.fromkeys(AUDIT_FIELDS, value) | {"before": -1, "after": None} for value in HOSTILE]
    text = audit_csv(rows)
    assert all(safe(value) for value in cells_of(text)), text
    assert cells_of(text)[len(AUDIT_FIELDS) + 6:len(AUDIT_FIELDS) + 8] == ["-1", ""]


def test_the_tokens_csv_holds_no_formula_and_a_cut_column_holds_no_cr(tmp_path: Path) -> None:
    from grader.server.state import State
    from grader.server.tokens import caller_of, issue_for_roster

    state = State(tmp_path / "state")
    text = issue_for_roster(state, HOSTILE)
    assert "\r" not in text.replace('"a\\r=b"', "")
    assert all(safe(value) for value in cells_of(text))
    lines = [line for line in text.split("\n")[1:] if line.startswith("alice,")]
    (token,) = [line.split(",")[1] for line in lines]  # what `cut -d, -f2` gives
    assert caller_of(state, token) is not None


def test_every_gradebook_output_writes_hostile_names_as_inert_cells(tmp_path: Path) -> None:
    from grader.batch.roster import class_list
    from grader.gradebook import Gradebook
    from grader.outputs import output

    ids = {name: {"id": name, "login": name, "email": name, "sis_id": name} for name in HOSTILE}
    (tmp_path / "class.json").write_text(json.dumps(class_list(HOSTILE, ids, {}, None, {}, "server")))
    book = Gradebook("test", [], list(HOSTILE), {})
    written = [path for kind in ("csv", "plain", "canvas", "moodle") for path in output(kind).write(book, tmp_path)]
    assert len(written) == 4
    for path in written:
        values = cells_of(path.read_text(encoding="utf-8"))
        assert all(safe(value) for value in values), (path.name, values)
        assert "alice" in values


def test_the_analytics_tables_write_a_students_wrong_answer_as_an_inert_cell(tmp_path: Path) -> None:
    from grader.analytics.export import FIRST_PASS, SHARES, write_csv

    evil = HOSTILE[1]
    first_pass = dict.fromkeys(FIRST_PASS, 1)
    example = {"student": evil, "submission": 1, "submitted_at": evil}
    test = {"name": evil, "hidden": False, "students": 1, "failing": 1, **dict.fromkeys(SHARES, 0.5), "not_run": 0,
            "verdicts": {evil: 1}, "first_pass": first_pass, "distinct_wrong_answers": 1,
            "wrong_answers": [{"verdict": evil, "answer": evil, "answer_length": 3, "expected": evil, "students": 1,
                               "share": 1.0, "latest_students": 1, "submissions": 1, "example": example}]}
    exercise = {"id": evil, "students": 1, "submissions": 1, "failing": 1, **dict.fromkeys(SHARES, 0.5),
                "first_pass": first_pass, "tests": [test],
                "failure_patterns": [{"failing_tests": [evil], "students": 1, "share": 1.0, "example": example,
                                      "mutants": [{"what": evil, "id": evil}]}],
                "mutants": [{"id": evil, "rule": evil, "what": evil, "status": evil, "failing_tests": [evil],
                             "students": 1, "share": 1.0, "sentence": evil}]}
    written = write_csv({"exercises": [exercise]}, tmp_path)
    assert len(written) == 5
    for path in written:
        values = cells_of(path.read_text(encoding="utf-8"))
        assert all(safe(value) for value in values) and any("cmd" in value for value in values), (path.name, values)
