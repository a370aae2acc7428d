"""A function exercise accepts a Jupyter notebook: its code cells run in order as the module, magics and
shell lines are not run (the report says where they were), tracebacks name the cell and its line, and a
file that is not a notebook gets syntax_error with the reason."""

from __future__ import annotations

from pathlib import Path

import nbformat

from tests.handins.conftest import Course, verdicts, write


def notebook(path: Path, *cells: tuple[str, str]) -> Path:
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_markdown_cell(text) if kind == "md" else nbformat.v4.new_code_cell(text)
                  for kind, text in cells]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(book, path)
    return path


def test_code_cells_run_in_order_and_magics_and_shell_lines_are_skipped_and_named(course: Course,
                                                                                 tmp_path: Path) -> None:
    handin = notebook(tmp_path / "add.ipynb",
                      ("md", "# Adding\nWe add `a` and `b`."),
                      ("code", "%matplotlib inline\nimport operator"),
                      ("md", "The function:"),
                      ("code", "!pip install numpy\ndef add(a, b):\n    for _ in range(1):\n        %time pass\n"
                               "    return operator.add(a, b)"),
                      ("code", "%%timeit\nadd(1, 2)\nraise SystemExit('a cell magic is never run')"))
    report = course.check(handin)
    assert verdicts(report) == ["passed", "passed"]
    assert report["notes"] == ["cells 2, 4, 5 hold IPython magics or shell lines (% ... or ! ...); those "
                               "lines were not run"]
    terminal = course.run(handin).stdout
    assert "note: cells 2, 4, 5 hold IPython magics" in " ".join(terminal.split())


def test_a_traceback_names_the_cell_and_its_line(course: Course, tmp_path: Path) -> None:
    handin = notebook(tmp_path / "add.ipynb",
                      ("md", "intro"),
                      ("code", "x = 1\ny = 2"),
                      ("code", "def add(a, b):\n    if a == 1:\n        raise ValueError('one')\n    return a + b"))
    report = course.check(handin)
    visible, hidden = report["tests"]
    assert visible["verdict"] == "runtime_error" and hidden["verdict"] == "passed"
    assert 'File "add.ipynb", cell 3, line 3, in add' in visible["details"]
    assert "submission.py" not in visible["details"]


def test_a_syntax_error_names_the_cell(course: Course, tmp_path: Path) -> None:
    handin = notebook(tmp_path / "add.ipynb", ("code", "import math"), ("md", "next"),
                      ("code", "def add(a, b):\n    return a +"))
    report = course.check(handin)
    assert verdicts(report) == ["syntax_error", "syntax_error"]
    assert report["tests"][0]["feedback"].startswith("cell 3, line 2: ")


def test_a_notebook_that_is_not_json_gets_syntax_error_with_the_reason(course: Course, tmp_path: Path) -> None:
    report = course.check(write(tmp_path / "add.ipynb", '{"cells": [{"cell_type": "code",'))
    assert verdicts(report) == ["syntax_error", "syntax_error"]
    assert report["tests"][0]["feedback"].startswith("the notebook cannot be read: it is not valid JSON")


def test_json_that_is_not_a_notebook_gets_syntax_error_with_the_reason(course: Course, tmp_path: Path) -> None:
    for text, reason in (('{"cells": 3}', "a notebook is a JSON object with 'nbformat'"),
                         ('[1, 2]', "a notebook is a JSON object with 'nbformat'"),
                         ('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": 3}',
                          "its 'cells' is not a list"),
                         ('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "x"}]}',
                          "it is not a Jupyter notebook")):
        report = course.check(write(tmp_path / "add.ipynb", text))
        assert verdicts(report) == ["syntax_error", "syntax_error"], text
        assert reason in report["tests"][0]["feedback"], report["tests"][0]["feedback"]
