"""require/forbid rules read the syntax tree, not the text."""

from __future__ import annotations

import ast

from grader.model import Rule
from grader.rules import check_rules

FORBID = (Rule("permutations", "build the board row by row"), Rule("itertools"))


def violations(code: str, require: tuple[Rule, ...] = (), forbid: tuple[Rule, ...] = FORBID) -> list[str]:
    return [v.message for v in check_rules(ast.parse(code), require, forbid)]


def test_names_in_comments_and_strings_do_not_count() -> None:
    assert violations("# itertools.permutations would be slow\nx = 'permutations'\n") == []


def test_an_aliased_import_counts() -> None:
    assert violations("x = 1\nimport itertools as it\n") == ["line 2: uses itertools, which this exercise forbids"]


def test_from_import_counts_for_the_module_and_the_name() -> None:
    found = violations("from itertools import permutations as p\n")
    assert found == ["line 1: uses permutations, which this exercise forbids: build the board row by row",
                     "line 1: uses itertools, which this exercise forbids"]


def test_attribute_use_counts() -> None:
    assert violations("import math\ny = math.permutations\n", forbid=(Rule("permutations"),)) == [
        "line 2: uses permutations, which this exercise forbids"]


def test_require_reports_what_is_missing() -> None:
    assert violations("def f(): pass\n", require=(Rule("set", "use sets for the diagonals"),), forbid=()) == [
        "the code must use set: use sets for the diagonals"]
    assert violations("cols = set()\n", require=(Rule("set"),), forbid=()) == []
