"""`grader similar` as a teaching assistant runs it: a real subprocess on a class folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Completed, run_cli
from tests.similarity.classroom import INDEPENDENT, PLANTED, write_class
from tests.similarity.page import page

HOSTILE = "<img src=x onerror=alert(1)>\x1b[31m"  # a folder name is the student's to choose
SOURCES = {**PLANTED, **INDEPENDENT, HOSTILE: PLANTED["renamed"].replace("total", "acc")}
SHOWN = HOSTILE.replace("\x1b", "\\x1b")  # the name as every output has it, escaped once when the class is read


@pytest.fixture(scope="module")
def class_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_class(tmp_path_factory.mktemp("cli") / "class", SOURCES)


@pytest.fixture(scope="module")
def as_json(class_folder: Path) -> Completed:
    return run_cli("similar", class_folder, "--exercise", "count-queens", "--format", "json")


@pytest.fixture(scope="module")
def as_html(class_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Completed, Path]:
    out = tmp_path_factory.mktemp("out")
    return run_cli("similar", class_folder, "--out", out), out


def test_json_lists_every_pair_that_shares_code_highest_first(as_json: Completed) -> None:
    assert as_json.returncode == 0, as_json.stderr
    pairs = as_json.json()["pairs"]
    assert all(set(pair) == {"a", "b", "exercise", "score"} for pair in pairs)
    assert all(pair["exercise"] == "count-queens" and 0 < pair["score"] <= 1 for pair in pairs)
    assert [p["score"] for p in pairs] == sorted((p["score"] for p in pairs), reverse=True)
    copies = set(PLANTED) | {SHOWN}
    count = len(copies) * (len(copies) - 1) // 2
    assert all(p["a"] in copies and p["b"] in copies for p in pairs[:count])
    assert not any(p["a"] in copies and p["b"] in copies for p in pairs[count:])


def test_json_groups_the_copies(as_json: Completed) -> None:
    assert [g["students"] for g in as_json.json()["groups"]] == [sorted(set(PLANTED) | {SHOWN})]


def test_the_terminal_shows_the_closest_pairs_with_names_escaped(as_html: tuple[Completed, Path]) -> None:
    completed, out = as_html
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0] == "Similarity is a signal for a person to look at, not a verdict."
    assert "100.0%  count-queens  original and recommented" in lines[1:11]
    assert "\x1b" not in completed.stdout  # the student's escape sequence is shown, never sent to the terminal
    assert "\\x1b[31m" in completed.stdout
    assert lines[-1] == f"wrote {out / 'similarity' / 'index.html'}"


def test_the_html_ranks_pairs_groups_students_and_says_it_is_no_verdict(as_html: tuple[Completed, Path]) -> None:
    _, out = as_html
    index = page(out / "similarity" / "index.html")
    assert "Similarity is a signal for a person to look at, not a verdict." in index.all_text
    header, *rows = index.rows["pairs"]
    assert header[:5] == ["#", "Exercise", "Student A", "Student B", "Score"]
    scores = [float(row[4].rstrip("%")) for row in rows]
    assert scores == sorted(scores, reverse=True) and len(rows) == 55
    [group] = index.rows["groups"][1:]
    assert group[1].split(", ") == sorted(set(PLANTED) | {HOSTILE.replace("\x1b", "\\x1b")})


def test_the_html_escapes_a_hostile_name(as_html: tuple[Completed, Path]) -> None:
    _, out = as_html
    text = (out / "similarity" / "index.html").read_text(encoding="utf-8")
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;\\x1b[31m" in text
    assert "\x1b" not in text
    assert all("img" not in path.name for path in (out / "similarity").rglob("*"))


def test_a_pair_page_shows_both_files_side_by_side_with_the_regions_marked(as_html: tuple[Completed, Path]) -> None:
    _, out = as_html
    index = page(out / "similarity" / "index.html")
    first = next(link for link in index.links if link.startswith("pairs/"))
    pair = page(out / "similarity" / first)
    header, *regions = pair.rows["regions"]
    shown = {name.replace("\x1b", "\\x1b"): name for name in SOURCES}  # as the page writes a name
    students = [shown[label.rsplit("/", 1)[0]] for label in header[1:]]
    assert header[0] == "Region" and len(regions) >= 1
    for student, rows in zip(students, pair.sides):
        # One row per line: its number, then the line exactly as the student wrote it.
        assert [text for text, _ in rows] == [f"{number}{line}" for number, line in
                                              enumerate(SOURCES[student].splitlines(), 1)]
        assert any(region for _, region in rows), f"no line of {student}'s file is marked"


@pytest.mark.parametrize("arguments", [("--exercise", "count-queenz"), ("--threshold", "2"), ("--format", "xml")])
def test_a_bad_command_line_gets_the_usage_and_status_2(class_folder: Path, arguments: tuple[str, ...]) -> None:
    completed = run_cli("similar", class_folder, *arguments)
    assert completed.returncode == 2
    assert completed.stderr.startswith("usage: grader similar")


def test_a_missing_class_folder_is_a_usage_error(tmp_path: Path) -> None:
    completed = run_cli("similar", tmp_path / "nowhere")
    assert completed.returncode == 2
    assert "no submissions folder" in completed.stderr


def test_a_predict_exercise_has_nothing_to_compare(class_folder: Path) -> None:
    completed = run_cli("similar", class_folder, "--exercise", "predict-attacked")
    assert completed.returncode == 2
    assert "program outputs" in completed.stderr
