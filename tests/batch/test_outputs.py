"""Every output of the batch, checked against its format: the CSV gradebook, the JSON export, Gradescope's
results.json schema, the JUnit XML schema, and HTML pages that parse, show every student and escape
student text."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import xmlschema

from tests.batch.classroom import ODD_NAMES
from tests.batch.conftest import GradedClass, read_csv

VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}


# ---------------------------------------------------------------- Gradescope
def gradescope_problems(results: dict[str, Any]) -> list[str]:
    """What breaks Gradescope's documented results.json schema (top level and tests[i])."""
    top = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
           "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
    per_test = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
                "tags", "visibility", "extra_data"}
    problems = [f"unknown key {key}" for key in results if key not in top]
    if "tests" not in results and "score" not in results:
        problems.append("neither tests nor score")
    for key in ("score", "execution_time"):
        if key in results and not isinstance(results[key], (int, float)):
            problems.append(f"{key} is not a number")
    if not isinstance(results.get("execution_time", 0), int):
        problems.append("execution_time is not an integer")
    for key in ("visibility", "stdout_visibility"):
        if key in results and results[key] not in VISIBILITY:
            problems.append(f"{key} {results[key]!r}")
    for number, test in enumerate(results.get("tests", [])):
        problems += [f"test {number}: unknown key {key}" for key in test if key not in per_test]
        for key in ("score", "max_score"):
            if not isinstance(test.get(key), (int, float)):
                problems.append(f"test {number}: {key} is not a number")
        if test.get("status") not in ("passed", "failed"):
            problems.append(f"test {number}: status {test.get('status')!r}")
        if test.get("visibility", "visible") not in VISIBILITY:
            problems.append(f"test {number}: visibility {test.get('visibility')!r}")
        for key in ("name", "output", "number"):
            if key in test and not isinstance(test[key], str):
                problems.append(f"test {number}: {key} is not a string")
        if not all(isinstance(tag, str) for tag in test.get("tags", [])):
            problems.append(f"test {number}: tags must be strings")
    return problems


def test_each_student_gets_a_gradescope_results_json_in_the_documented_schema(graded_class: GradedClass) -> None:
    totals = {row["student"].removeprefix("'"): float(row["total"]) for row in graded_class.gradebook()}
    folders = sorted((graded_class.out / "gradescope").iterdir())
    assert len(folders) == 64
    for folder in folders:
        results = json.loads((folder / "results.json").read_text())
        assert gradescope_problems(results) == [], folder.name
        student = results["extra_data"]["student"]
        assert results["score"] == totals[student]
        assert len(results["tests"]) == 4 + 2 + 1
        assert sum(t["score"] for t in results["tests"]) == results["score"]
        hidden = [t for t in results["tests"] if t["visibility"] == "after_published"]
        assert {t["name"] for t in hidden} == {"add: add(-1, 1)", "add: add(5000, 1)", "shout: two words"}


def test_a_hidden_test_never_shows_its_input_or_answer_in_gradescope(graded_class: GradedClass) -> None:
    for path in (graded_class.out / "gradescope").glob("*/results.json"):
        for test in json.loads(path.read_text())["tests"]:
            if test["visibility"] != "visible":
                output = test["output"]
                assert "abc def" not in output.lower() and "expected:" not in output and "actual:" not in output


def test_odd_student_names_become_safe_distinct_folder_names(graded_class: GradedClass) -> None:
    names = {p.name for p in (graded_class.out / "gradescope").iterdir()}
    assert all("<" not in name and not name.startswith("=") for name in names)
    students = {json.loads((graded_class.out / "gradescope" / n / "results.json").read_text())["extra_data"]
                ["student"] for n in names}
    assert set(ODD_NAMES) <= students


# ---------------------------------------------------------------- JUnit
# The Jenkins xUnit plugin validates every JUnit report against this schema (vendored, see schemas/README.md).
JUNIT_XSD = Path(__file__).parent / "schemas" / "junit-10.xsd"


def test_junit_xml_is_valid_against_the_jenkins_xunit_schema(graded_class: GradedClass) -> None:
    schema = xmlschema.XMLSchema(JUNIT_XSD)
    errors = [str(error.reason) for error in schema.iter_errors(graded_class.out / "junit.xml")]
    assert errors == []


def test_the_counts_of_each_suite_and_of_the_whole_file_add_up(graded_class: GradedClass) -> None:
    root = ET.parse(graded_class.out / "junit.xml").getroot()
    totals = dict.fromkeys(("tests", "failures", "errors"), 0)
    for suite in root.iter("testsuite"):
        found = {"tests": len(suite.findall("testcase")), "failures": len(suite.findall("testcase/failure")),
                 "errors": len(suite.findall("testcase/error")), "skipped": len(suite.findall("testcase/skipped"))}
        assert {key: int(suite.get(key, "-1")) for key in found} == found, suite.get("name")
        for key in totals:
            totals[key] += found[key]
    assert {key: int(root.get(key, "-1")) for key in totals} == totals


def test_junit_xml_has_one_testsuite_per_student_and_a_case_per_test(graded_class: GradedClass) -> None:
    root = ET.parse(graded_class.out / "junit.xml").getroot()
    assert sorted(suite.get("name", "") for suite in root) == sorted(graded_class.chosen)
    kinds = {(case.get("classname", "").rsplit(".", 1)[1], child.tag, child.get("type"))
             for case in root.iter("testcase") for child in case}
    assert ("add", "error", "timeout") in kinds and ("shout", "failure", "wrong_answer") in kinds
    assert ("guess", "failure", "missing") in kinds and ("add", "error", "syntax_error") in kinds


def test_each_tests_points_are_properties_of_the_students_suite(graded_class: GradedClass) -> None:
    root = ET.parse(graded_class.out / "junit.xml").getroot()
    for suite in root.iter("testsuite"):
        props = {p.get("name"): p.get("value") for p in suite.iter("property")}
        chosen = graded_class.chosen[suite.get("name", "")]
        assert props["max_points:shout:hello"] == "2" and props["max_points:add:add(1, 2)"] == "1"
        scored = sum(float(value or 0) for name, value in props.items() if name and name.startswith("points:"))
        assert scored == float(props["total"]) == sum(v.score for v in chosen.values())


def test_control_characters_a_student_printed_do_not_break_the_xml(graded_class: GradedClass) -> None:
    text = (graded_class.out / "junit.xml").read_text(encoding="utf-8")
    assert "\\x1b[31mRED\\x07\\x00" in text and "\x1b" not in text and "\x00" not in text


# ---------------------------------------------------------------- CSV and JSON
def test_a_student_name_that_looks_like_a_formula_is_made_inert_in_the_csv(graded_class: GradedClass) -> None:
    students = [row["student"] for row in read_csv(graded_class.out / "gradebook.csv")]
    assert "'=1+1" in students and "=1+1" not in students


def test_the_json_export_holds_every_test_as_grader_check_reports_it(graded_class: GradedClass) -> None:
    export = json.loads((graded_class.out / "grades.json").read_text())
    assert export["version"] == 1 and export["max_total"] == 9
    assert [e["id"] for e in export["exercises"]] == ["add", "guess", "shout"]
    assert len(export["students"]) == 64
    for student in export["students"]:
        assert student["total"] == sum(e["score"] for e in student["exercises"].values())
        for exercise in student["exercises"].values():
            for test in exercise["tests"]:
                assert {"name", "verdict", "points", "max_points", "feedback", "hidden"} <= set(test)
                assert ("expected" in test) is not test["hidden"]


# ---------------------------------------------------------------- HTML
class Page(HTMLParser):
    """The parts of a page the tests look at: tags seen, table rows (as cell texts) by table id, all text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.rows: list[list[str]] = []
        self.tables: dict[str, list[list[str]]] = {}
        self.text: list[str] = []
        self._cell: list[str] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "table":
            self.rows = self.tables.setdefault(dict(attrs).get("id") or f"table {len(self.tables)}", [])
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.rows:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def page(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def test_the_class_page_parses_and_lists_every_student_with_their_total(graded_class: GradedClass) -> None:
    index = page(graded_class.out / "html" / "index.html")
    header, *rows = index.tables["gradebook"]
    assert header == ["student", "add", "guess", "shout", "total"]
    totals = {row["student"].removeprefix("'"): row["total"] for row in graded_class.gradebook()}
    assert {row[0]: row[-1] for row in rows} == totals
    assert index.tags.count("svg") == 1 and index.tags.count("rect") >= 10


def test_student_text_is_escaped_in_every_page(graded_class: GradedClass) -> None:
    folder = graded_class.out / "html"
    index = page(folder / "index.html")
    assert "img" not in index.tags and index.tags.count("script") == 1  # only our own table sorter
    pages = list((folder / "students").glob("*.html"))
    assert len(pages) == 64
    printed_markup = 0
    for path in pages:
        student = page(path)
        assert "script" not in student.tags and "img" not in student.tags, path.name
        printed_markup += "<script>alert(1)</script>" in "".join(student.text)
    assert printed_markup > 0  # shown to the student as text, not run


def test_a_student_page_shows_expected_and_actual_of_visible_tests_only(graded_class: GradedClass) -> None:
    student = next(s for s, answers in graded_class.chosen.items() if answers["shout"].name == "html")
    shown = "".join(page(graded_class.out / "html" / "students" / f"{student}.html").text)
    assert "HELLO" in shown and "<script>alert(1)</script>" in shown  # the visible test: expected, actual
    assert "abc def" not in shown.lower()  # the hidden test: its verdict and feedback only
    assert "wrong answer" in shown


def test_a_file_that_does_not_parse_or_is_missing_is_one_line_on_the_page_and_in_batch_show(
        graded_class: GradedClass) -> None:
    from tests.conftest import run_cli

    student = next(s for s, answers in graded_class.chosen.items() if answers["add"].name == "syntax")
    html = (graded_class.out / "html" / "students" / f"{student}.html").read_text()
    section = html[html.index('id="add"'):html.index("</section>", html.index('id="add"'))]
    assert section.count("whole-file") == 1 and '<table class="tests">' not in section
    shown = run_cli("batch", "show", student, "add", "--out", graded_class.out)
    assert shown.returncode == 0, shown.stderr
    assert "(all 4 tests)" in shown.stdout and "1. " not in shown.stdout  # no panel per test
    absent = next(s for s, answers in graded_class.chosen.items() if answers["add"].name == "missing")
    html = (graded_class.out / "html" / "students" / f"{absent}.html").read_text()
    section = html[html.index('id="add"'):html.index("</section>", html.index('id="add"'))]
    assert section.count("whole-file") == 1 and '<table class="tests">' not in section
