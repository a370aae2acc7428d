"""A spec's `quality:` through every door: `grader check` (terminal and JSON, twice: the same section byte for
byte), `grader batch` (grades.json's parts, JUnit, the student's HTML page) and a real `grader serve` (the
submission page, the gradebook's parts, a review's form offering the issues as line comments)."""

from __future__ import annotations

import json
import re
import tomllib
import xml.etree.ElementTree as ET
from importlib.metadata import version
from pathlib import Path

from grader.outputs.json_report import as_json
from grader.server.client import report_from_json
from tests.conftest import ROOT, run_cli
from tests.server.conftest import Served, served  # noqa: F401 - the fixture: a real grader serve

# Passes every test of the bundled first-solution; loses 1 for naming (4 issues, capped), 1 for bugs (F401,
# B006), and the exercise's cap (15% of 10: the tests' 9 points and the search's 1) holds the total at 1.5.
UNTIDY = """\
import os


def first_solution(N, Cols=[]):
    Cols = []
    def Search(row):
        if row == N:
            return True
        for c in range(N):
            if all(c != x and abs(c - x) != row - r for r, x in enumerate(Cols)):
                Cols.append(c)
                if Search(row + 1):
                    return True
                Cols.pop()
        return False
    return list(Cols) if Search(0) else None
"""
TIDY = (ROOT / "reference" / "first-solution" / "accepted" / "plain_sets.py").read_text()


def test_ruff_is_pinned_exactly_and_the_report_names_that_version() -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert f"ruff=={version('ruff')}" in dependencies


def test_check_takes_the_capped_deduction_says_it_per_line_and_a_second_check_is_byte_identical(tmp_path: Path) -> None:
    handed_in = tmp_path / "first_solution.py"
    handed_in.write_text(UNTIDY)
    sections = []
    for _ in range(2):
        result = run_cli("check", "first-solution", handed_in, "--format", "json", "--exercises", ROOT / "exercises")
        report = json.loads(result.stdout)
        sections.append(json.dumps(report["quality"], sort_keys=True))
    assert sections[0] == sections[1]
    assert as_json(report_from_json(report)) == report  # `grader submit` reads the server's reply back whole
    quality = report["quality"]
    assert report["score"] == 8.5 and report["verdict"] == "passed" and result.returncode == 0
    assert quality["tool"] == f"ruff {version('ruff')}" and quality["deduction"] == 1.5 and quality["capped"]
    assert [(c["name"], c["counted"], c["deduction"], c["capped"]) for c in quality["categories"]] == [
        ("naming", 4, 1.0, True), ("bugs", 2, 1.0, False), ("style", 0, 0.0, False)]
    assert quality["issues"][1] == {"code": "N803", "message": "Argument name `N` should be lowercase", "line": 4,
                                    "column": 20, "category": "naming", "text": "def first_solution(N, Cols=[]):",
                                    "in_starter": False, "url": "https://docs.astral.sh/ruff/rules/invalid-argument-name"}

    shown = run_cli("check", "first-solution", handed_in, "--exercises", ROOT / "exercises", env={"COLUMNS": "160"})
    assert f"Code quality (ruff {version('ruff')}): 1.5 points off, capped for the exercise" in shown.stdout
    assert "naming (graded): 4 issues, 1 point off (capped)" in shown.stdout
    assert "line 6:9 N802 Function name `Search` should be lowercase [naming]" in shown.stdout
    assert "Score 8.5/10 (10 from the tests, 1.5 off for code quality)." in shown.stdout


def test_batch_gradebook_parts_junit_and_the_students_page_say_the_deduction(tmp_path: Path) -> None:
    for student, text in (("ada", UNTIDY), ("alan", TIDY)):
        (tmp_path / "class" / student).mkdir(parents=True)
        (tmp_path / "class" / student / "first-solution.py").write_text(text)
    out = tmp_path / "out"
    result = run_cli("batch", tmp_path / "class", "--exercises", ROOT / "exercises", "--out", out,
                     "--workers", 1, "--outputs", "json,junit,html", timeout=300)
    assert result.returncode in (0, 1), result.stderr
    cells = {s["student"]: s["exercises"]["first-solution"] for s in json.loads((out / "grades.json").read_text())["students"]}
    assert cells["ada"]["parts"] == {"tests": 10.0, "quality": -1.5} and cells["ada"]["score"] == 8.5
    assert cells["alan"]["parts"] == {"tests": 10.0, "quality": 0.0} and cells["alan"]["score"] == 10.0
    assert cells["ada"]["quality"]["issues"][0]["code"] == "F401"
    suites = {s.get("name"): s for s in ET.parse(out / "junit.xml").getroot()}
    found = {p.get("name"): p.get("value") for p in suites["ada"].iter("property")}
    assert found["quality_deduction:first-solution"] == "1.5"
    page = next((out / "html" / "students").glob("ada*.html")).read_text()
    assert "1.5 points off, capped for the exercise" in page
    assert re.search(r"<td>4:20</td>\s*<td><a href=\"[^\"]+\">N803</a></td>", page)


def test_the_server_shows_the_issues_says_the_part_and_offers_them_to_a_reviewer(served: Served) -> None:
    spec = served.exercises / "add.yaml"
    spec.write_text(spec.read_text() + "quality:\n  categories:\n"
                    "    naming: {rules: [N8], mode: graded, penalty: 0.5}\n    style: {rules: [E, W], mode: feedback}\n")
    ta, alice = served.token("ta", staff=True), served.token("alice")
    served.start("--workers", "1")
    number = served.submit(alice, "add", "def add(A, b):\n    return A + b\n").body["id"]
    graded = served.wait(alice, number)
    assert graded["report"]["quality"]["deduction"] == 0.5 and graded["report"]["score"] == 3.5

    page = served.call("GET", f"/submissions/{number}", alice).body
    assert "0.5 points off" in page and "Argument name `A` should be lowercase" in page
    applied = served.call("GET", "/api/gradebook", ta).body["applied"]
    assert applied[0]["parts"]["quality"] == -0.5 and applied[0]["parts"]["tests"] == 4.0
    form = served.call("GET", f"/submissions/{number}/review", ta).body
    assert 'id="offered"' in form and "N803: Argument name `A` should be lowercase (naming)</textarea>" in form
    assert 'id="offered"' not in served.call("GET", f"/submissions/{number}/review", alice).body
