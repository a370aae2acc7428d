"""The spec's `quality:` as the loader reads it: every mistake reported with file:line:col and what to write."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.quality.data import Category, Mode, QualitySpec
from grader.spec import load_exercise
from tests.unit.test_spec import GOOD, problems

QUALITY = """\
quality:
  categories:
    naming: {rules: [N8], mode: graded, penalty: 0.5, cap: 2}
    style: {rules: [E, W], mode: feedback}
    bugs: {rules: [F, B], mode: off}
  cap: 10%
"""


def test_a_quality_section_loads_with_its_modes_penalties_and_caps(tmp_path: Path) -> None:
    path = tmp_path / "add.yaml"
    path.write_text(GOOD + QUALITY)
    assert load_exercise(path).quality == QualitySpec((
        Category("naming", ("N8",), Mode.GRADED, 0.5, 2.0), Category("style", ("E", "W"), Mode.FEEDBACK),
        Category("bugs", ("F", "B"), Mode.OFF)), cap=None, cap_percent=10.0)


@pytest.mark.parametrize(("section", "expected"), [
    ("    naming: {rules: [N8], mode: graded}\n",
     "add.yaml:11:13: quality category 'naming' is graded: it needs penalty, the points each issue takes off"),
    ("    style: {rules: [E], penalty: 1}\n",
     "add.yaml:11:34: quality category 'style': penalty is for a graded category; this one is feedback "
     "(write mode: graded, or drop penalty)"),
    ("    style: {rules: [E], mode: strict}\n",
     "add.yaml:11:31: quality category 'style': mode must be off, feedback or graded, not 'strict'"),
    ("    style: {rules: [e501]}\n",
     "add.yaml:11:20: quality category 'style': 'e501' is not a ruff rule code or prefix (e.g. E, N8, B006)"),
    ("    style: {rules: [E]}\n    more: {rules: [E]}\n",
     "add.yaml:11:5: quality: rule 'E' is in categories 'style' and 'more': an issue belongs to one category"),
    ("    style: {rules: [ZZZ9]}\n",
     "add.yaml:11:21: quality: Unknown rule selector `ZZZ9` in `select` from the CLI; the rules are ruff's codes "
     "(https://docs.astral.sh/ruff/rules/)"),
    ("    style: {rules: [E]}\n  cap: 120%\n",
     "add.yaml:12:8: quality: cap '120%' must be a share from 0% to 100%, or a number of points"),
    ("    style: {rules: [E], mode: graded, penalty: -1}\n",
     "add.yaml:11:48: quality category 'style': penalty must be a positive number of points, at most 1000, not -1.0"),
], ids=["graded without penalty", "penalty on feedback", "unknown mode", "not a code", "one rule twice",
        "a rule ruff does not know", "a share over 100%", "a negative penalty"])
def test_a_mistake_in_quality_is_reported_where_it_is(tmp_path: Path, section: str, expected: str) -> None:
    assert problems(tmp_path, GOOD + "quality:\n  categories:\n" + section) == [expected]


def test_quality_needs_categories_and_only_code_takes_it(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD + "quality: {cap: 2}\n")[0].startswith("add.yaml:9:10: quality needs categories")
    predict = ("title: P\nkind: predict\nstatement: What does it print?\nsnippet: print(1)\n"
               "tests:\n  - name: the output\n" + QUALITY)
    assert problems(tmp_path, predict) == [
        "add.yaml:8:3: quality: is for code that is handed in; this exercise's hand-in is not code"]


def test_an_exported_spec_carries_quality_and_reads_back_the_same(tmp_path: Path) -> None:
    from grader.export import exercise_spec, write_spec

    path = tmp_path / "add.yaml"
    path.write_text(GOOD + QUALITY.replace("cap: 10%", "cap: 2.5"))
    exercise = load_exercise(path)
    write_spec(exercise_spec(exercise, exercise.tests, {}), tmp_path / "out" / "add.yaml")
    assert load_exercise(tmp_path / "out" / "add.yaml").quality == exercise.quality
