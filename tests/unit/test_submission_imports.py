"""test_setup's imports of the submission (`from grains import square`), taken out to be bound after it loads."""

from __future__ import annotations

import pytest

from grader.submission_imports import module_name, split_imports


def test_the_module_is_the_exercise_id_as_a_python_name() -> None:
    assert module_name("circular-buffer") == "circular_buffer"


@pytest.mark.parametrize(("text", "kept", "bindings"), [
    ("from grains import square, total as t\nX = 1\n", "pass\nX = 1\n", (("square", "square"), ("t", "total"))),
    ("import grains\n", "pass\n", (("grains", ""),)),
    ("import os, grains as g\n", "pass; import os\n", (("g", ""),)),
    ("from grains import (\n    square,\n)\nY = 2\n", "pass\n\n\nY = 2\n", (("square", "square"),)),
    ("from grains import *\n", "pass\n", (("*", "*"),)),
], ids=["from", "import", "beside-another", "parenthesised", "star"])
def test_top_level_imports_of_the_submission_become_bindings_and_lines_keep_their_numbers(
        text: str, kept: str, bindings: tuple[tuple[str, str], ...]) -> None:
    assert split_imports(text, "grains") == (kept, bindings)


@pytest.mark.parametrize("text", [
    "from collections import Counter\n",  # another module
    "def f():\n    from grains import square\n",  # inside a helper: the sandbox's import hook binds it
    "from .grains import square\n",  # relative: not the submission
    "x = 1; from grains import square\n",  # shares its line: left to fail as a missing module
    "from grains import (\n",  # not Python: the loader says so
])
def test_other_code_is_left_as_it_is(text: str) -> None:
    assert split_imports(text, "grains") == (text, ())


def test_an_exercise_named_as_a_standard_module_leaves_its_import_to_the_standard_library() -> None:
    assert split_imports("import math\n", "math") == ("import math\n", ())
