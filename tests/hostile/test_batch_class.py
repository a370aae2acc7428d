"""A class folder built to break `grader batch` or fool the teaching assistant who runs it: a symlink loop,
a student folder that is a link out of the class, file names carrying terminal escapes, and a folder name
whose right-to-left override makes it read as another student's."""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

from tests.batch.classroom import write_course
from tests.conftest import Completed, run_cli

ADD = "def add(a, b):\n    return a + b\n"
# A terminal hyperlink (OSC 8), a line erased and the cursor moved up, invisible bidi and format marks.
OSC8 = "\x1b]8;;https:evil.example\x07add\x1b]8;;\x07"  # no "/": a file name
ERASE = "\x1b[2K\x1b[1Aall good"
INVISIBLE = ("\u061c", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\u00ad", "\ufeff")


def batch(root: Path, *extra: object) -> Completed:
    return run_cli("batch", root / "class", "--exercises", write_course(root), "--out", root / "out",
                   "--workers", 1, "--only", "add", *extra, timeout=300)


def gradebook(root: Path) -> dict[str, dict[str, str]]:
    with (root / "out" / "gradebook.csv").open(newline="") as stream:
        return {row["student"]: row for row in csv.DictReader(stream)}


def student(root: Path, name: str, code: str = ADD) -> Path:
    folder = root / "class" / name
    folder.mkdir(parents=True)
    (folder / "add.py").write_text(code)
    return folder


def test_a_symlink_loop_gets_its_student_a_verdict_and_the_class_is_graded(tmp_path: Path) -> None:
    student(tmp_path, "alice")
    loop = tmp_path / "class" / "mallory"
    loop.mkdir(parents=True)
    os.symlink("add.py", loop / "add.py")  # a link to itself
    os.symlink("b", loop / "a")
    os.symlink("a", loop / "b")
    (loop / "sub").mkdir()
    os.symlink("..", loop / "sub" / "up")  # a folder loop

    result = batch(tmp_path)
    assert result.returncode == 0, result.stderr
    rows = gradebook(tmp_path)
    assert rows["alice"]["add"] == "4" and rows["mallory"]["add"] == "0"
    assert "Traceback" not in result.stderr


def test_a_student_folder_that_is_a_link_out_of_the_class_is_not_followed(tmp_path: Path) -> None:
    student(tmp_path, "alice")
    outside = tmp_path / "someone-elses-work"
    outside.mkdir()
    (outside / "add.py").write_text(ADD + "# not mallory's\n")
    os.symlink(outside, tmp_path / "class" / "mallory")

    result = batch(tmp_path)
    assert result.returncode == 0, result.stderr
    assert gradebook(tmp_path)["mallory"]["add"] == "0"
    page = next((tmp_path / "out" / "html" / "students").glob("mallory*.html")).read_text()
    assert "folder is a symbolic link" in page


def test_file_names_reach_the_terminal_escaped(tmp_path: Path) -> None:
    folder = student(tmp_path, "alice")
    for name in (f"{OSC8}.py", f"{ERASE}.py", *(f"notes{mark}.md" for mark in INVISIBLE)):
        (folder / name).write_text("x\n")
    result = batch(tmp_path)
    assert result.returncode == 0, result.stderr
    shown = result.stdout + result.stderr
    assert "\x1b" not in shown and "\x07" not in shown
    assert not any(mark in shown for mark in INVISIBLE)
    assert "\\x1b]8;;https:evil.example\\x07" in shown and "\\x1b[2K" in shown
    assert "\\u061c" in shown and "\\u202e" in shown


def test_a_right_to_left_override_cannot_pass_for_another_student_in_the_html(tmp_path: Path) -> None:
    student(tmp_path, "alice")
    student(tmp_path, "\u202eecila", "def add(a, b):\n    return 0\n")  # shown right to left: "alice"
    result = batch(tmp_path)
    assert result.returncode == 0, result.stderr
    pages = [tmp_path / "out" / "html" / "index.html", *(tmp_path / "out" / "html" / "students").glob("*.html")]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "\u202e" not in text, page.name
    index = (tmp_path / "out" / "html" / "index.html").read_text(encoding="utf-8")
    names = re.findall(r'<a href="students/[^"]+">([^<]+)</a>', index)
    assert sorted(names) == ["\\u202eecila", "alice"]


def test_every_invisible_format_character_of_unicode_is_shown_escaped() -> None:
    import sys
    import unicodedata

    from grader.text import escape_controls

    invisible = [chr(c) for c in range(sys.maxunicode + 1)
                 if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp") and chr(c) not in "\t\n"]
    left = [f"U+{ord(ch):04X}" for ch in invisible if escape_controls(f"a{ch}b") == f"a{ch}b"]
    assert left == []
    assert escape_controls("\u202eecila") == "\\u202eecila" and escape_controls("\U000e0041") == "\\U000e0041"
