"""Source is read as Python reads it: a PEP 263 coding line is honoured; a file Python would refuse is
refused with the line and column of the bad byte and what to do."""

from __future__ import annotations

from pathlib import Path

from tests.handins.conftest import Course, verdicts, write

GBK_SOLUTION = "# 两数相加\ndef add(a, b):\n    return a + b  # 返回和\n"


def test_a_declared_gbk_file_runs_as_python_runs_it(course: Course, tmp_path: Path) -> None:
    handin = write(tmp_path / "add.py", ("# -*- coding: gbk -*-\n" + GBK_SOLUTION).encode("gbk"))
    assert verdicts(course.check(handin)) == ["passed", "passed"]


def test_a_coding_line_on_line_two_and_latin_1_are_honoured(course: Course, tmp_path: Path) -> None:
    handin = write(tmp_path / "add.py", "#!/usr/bin/env python\n# coding: latin-1\n# café\n"
                                        "def add(a, b):\n    return a + b\n".encode("latin-1"))
    assert verdicts(course.check(handin)) == ["passed", "passed"]


def test_gbk_without_a_coding_line_is_refused_with_the_line_column_and_what_to_do(course: Course,
                                                                                  tmp_path: Path) -> None:
    handin = write(tmp_path / "add.py", GBK_SOLUTION.encode("gbk"))
    report = course.check(handin)
    assert verdicts(report) == ["runtime_error", "runtime_error"]
    assert report["tests"][0]["feedback"] == (
        "the file is not UTF-8 text: line 1, column 3 holds the byte 0xc1, which Python refuses; save the file "
        "as UTF-8 (or declare its encoding on line 1 or 2, e.g. '# -*- coding: gbk -*-')")


def test_an_unknown_or_wrong_declared_encoding_is_refused(course: Course, tmp_path: Path) -> None:
    unknown = course.check(write(tmp_path / "unknown.py", b"# coding: klingon\ndef add(a, b):\n    return a + b\n"))
    assert unknown["tests"][0]["feedback"].startswith("the file cannot be read: unknown encoding: klingon; save")
    wrong = course.check(write(tmp_path / "wrong.py", b"# coding: ascii\nx = 1\ny = '\xe9'\n"))
    assert wrong["tests"][0]["feedback"].startswith("the file is not ascii text: line 3, column 6 holds the "
                                                    "byte 0xe9")
