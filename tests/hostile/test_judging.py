"""What a submission returns, reaches for or prints is judged and shown for what it is, and a report stays
bounded whatever it holds (real submissions through the CLI)."""

from __future__ import annotations

import csv
import json

from tests.conftest import ROOT, run_cli
from tests.hostile.host import Course, submission, verdicts

EXERCISES = ROOT / "exercises"
RULE = "trying every permutation of the columns is too slow"  # count-queens' forbid message


def test_boards_returned_as_map_objects_are_a_wrong_answer_naming_the_type() -> None:
    result = run_cli("check", "n-queens", ROOT / "reference/n-queens/wrong_answer/boards_as_map_objects.py",
                     "--format", "json", "--exercises", EXERCISES)
    tests = {t["name"]: t for t in result.json()["tests"]}
    shown = tests["n = 4"]
    assert shown["verdict"] == "wrong_answer", shown
    # A map is read as its items in the sandbox: the feedback names its type and shows what it held.
    assert "of type map, expected list" in shown["feedback"] and "map(['.Q..'" in shown["feedback"], shown
    assert "runtime_error" not in {t["verdict"] for t in tests.values()}


def test_a_forbidden_name_built_at_run_time_is_denied_with_the_rules_message(tmp_path) -> None:
    path = tmp_path / "count_queens.py"
    path.write_text(submission("dynamic_forbidden.py"))
    result = run_cli("check", "count-queens", path, "--format", "json", "--exercises", EXERCISES)
    report = result.json()
    assert report["score"] == 0, result.stdout
    visible = report["tests"][0]
    assert visible["verdict"] == "runtime_error" and RULE in visible["feedback"], visible
    assert "AttributeError" in visible["feedback"]


def test_a_forbidden_module_does_not_import_by_a_built_name(hostile: Course) -> None:
    hostile.exercise("")
    spec = hostile.root / "exercises" / "hostile.yaml"
    spec.write_text(spec.read_text().replace("\ntests:\n", "\nforbid: [{name: itertools, message: no itertools here}]\ntests:\n"))
    result = hostile.check(submission("dynamic_import.py"))
    got = {t["name"]: t for t in result.json()["tests"]}
    assert got["square(3)"]["verdict"] == "runtime_error", result.stdout
    assert got["square(3)"]["feedback"].startswith("ImportError: uses itertools, which this exercise forbids")
    assert "no itertools here" in got["square(3)"]["feedback"]


def test_a_huge_prediction_gives_a_bounded_report(tmp_path) -> None:
    path = tmp_path / "answer.txt"
    path.write_text("0 1 2 3 \u202e\n" * ((1 << 20) // 12))  # just under 1 MiB, each line with a bidi override
    for format_ in ("json", "terminal"):
        result = run_cli("check", "predict-attacked", path, "--format", format_, "--exercises", EXERCISES)
        assert result.returncode == 1, result.stderr
        assert len(result.stdout.encode()) < (64 << 10) + (16 << 10), len(result.stdout)  # the output limit
        if format_ == "json":
            assert result.json()["tests"][0]["verdict"] == "wrong_answer"


def test_invisible_format_characters_are_shown_as_escapes(hostile: Course) -> None:
    hostile.exercise("  - name: shout\n    call: shout()\n    compare: output\n    expect: hello\n")
    path = hostile.root / "class" / "alice" / "hostile.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(submission("invisible.py"))
    result = run_cli("check", "hostile", path, "--exercises", hostile.root / "exercises",
                     env={"TMPDIR": str(hostile.scratch), "COLUMNS": "200"})
    out = result.stdout
    for char in "\u061c\u2067\u2069\u00ad\U000e0041\u2028\u180e":
        assert char not in out
    assert "\\u061c" in out and "\\u2067" in out and "\\xad" in out and "\\U000e0041" in out


def test_a_formula_after_a_separator_in_a_student_name_is_made_inert(tmp_path) -> None:
    student = tmp_path / "class" / 'bob;=HYPERLINK(1)'
    student.mkdir(parents=True)
    (student / "count-queens.py").write_text((ROOT / "reference/count-queens/accepted/plain_sets.py").read_text())
    result = run_cli("batch", tmp_path / "class", "--out", tmp_path / "out", "--outputs", "csv,json",
                     "--exercises", EXERCISES, "--workers", "1")
    assert result.returncode in (0, 1), result.stderr
    rows = list(csv.reader((tmp_path / "out" / "gradebook.csv").open()))
    names = [row[0] for row in rows[1:]]
    assert names == ["bob;'=HYPERLINK(1)"], names
    for separator in ";,\t|":  # however a spreadsheet splits the cell, no part starts a formula
        assert not any(part.lstrip().startswith(("=", "+", "-", "@")) for part in names[0].split(separator))
    assert json.loads((tmp_path / "out" / "grades.json").read_text())["students"]
