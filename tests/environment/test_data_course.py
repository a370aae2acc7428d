"""The data course of examples/ validates with every layer on: numpy, pandas and matplotlib imported from
its environment, arrays, frames and plots judged as data; a notebook that draws is graded headless."""

from __future__ import annotations

from pathlib import Path

import nbformat

from tests.conftest import DATA_COURSE, run_cli

EXERCISES = DATA_COURSE / "exercises"


def test_the_data_course_validates(data_environment) -> None:
    result = run_cli("validate", "--exercises", EXERCISES, env={"COLUMNS": "200"}, timeout=1200)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr
    assert "every exercise is valid (5 of 5" in result.stdout
    assert f"course {data_environment.name}" in result.stdout


def test_a_notebook_that_draws_is_graded_headless_by_its_plot(data_environment, tmp_path: Path) -> None:
    book = nbformat.v4.new_notebook()
    book.cells = [
        nbformat.v4.new_markdown_cell("# Growth"),
        nbformat.v4.new_code_cell("%matplotlib inline\nimport matplotlib.pyplot as plt"),
        nbformat.v4.new_code_cell("def growth_plot(years, values):\n    figure, axes = plt.subplots()\n"
                                  "    axes.plot(years, values, label='growth')\n"
                                  "    axes.set_title('Growth per year')\n    axes.set_xlabel('year')\n"
                                  "    axes.set_ylabel('value')\n    return figure"),
        nbformat.v4.new_code_cell("growth_plot([1, 2, 3], [2, 4, 8])\nplt.show()"),  # drawn while it loads
    ]
    path = tmp_path / "growth.ipynb"
    nbformat.write(book, path)
    result = run_cli("check", "growth-plot", path, "--all", "--format", "json", "--exercises", EXERCISES)
    report = result.json()
    assert report["verdict"] == "passed", result.stdout
    assert any("magics" in note for note in report["notes"])
    wrong = tmp_path / "wrong.ipynb"
    book.cells[2] = nbformat.v4.new_code_cell(book.cells[2].source.replace("set_ylabel('value')", "set_ylabel('v')"))
    nbformat.write(book, wrong)
    failed = run_cli("check", "growth-plot", wrong, "--format", "json", "--exercises", EXERCISES).json()
    assert failed["tests"][0]["verdict"] == "wrong_answer"
    assert failed["tests"][0]["feedback"] == "expected 'value' at ['axes'][0]['ylabel'], got 'v'"
