"""A YAML syntax error in a spec reads as a newcomer can act on it: file:line:col, the line with a caret
under the place, and the likely fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.errors import SpecError
from grader.spec import load_exercise

HEAD = "title: T\nkind: function\nentry: f\nstatement: s\n"
CASES = [
    pytest.param(HEAD + "tests:\n  - name: ratio: 2\n    call: f()\n    expect: 1\n",
                 6, "mapping values are not allowed", "must be quoted", "  - name: ratio: 2", id="colon-in-a-value"),
    pytest.param(HEAD + "tests:\n  - name: a\n  call: f()\n", 7, "did not find expected '-' indicator",
                 "aligned with the first key after its '- '", "  call: f()", id="key-under-a-dash"),
    pytest.param(HEAD + "tests:\n  - name: a\n    call: f()\n    expect: 1\n - name: b\n",
                 9, "did not find expected key", "align this line with the keys above it", " - name: b", id="list-indent"),
    pytest.param(HEAD + "tests:\n  - name: a\n    call: f()\n      expect: 1\n",
                 8, "mapping values are not allowed", "align it with its siblings", "      expect: 1", id="key-indent"),
    pytest.param(HEAD.replace("statement: s", "statement: `f(x)` doubles x") + "tests: []\n",
                 4, "cannot start any token", "quote the value", "statement: `f(x)` doubles x", id="backtick"),
    pytest.param(HEAD + 'tests:\n  - name: "a\n', 6, "unexpected end of stream", "never closed", None, id="open-quote"),
]


@pytest.mark.parametrize(("text", "line", "problem", "fix", "shown"), CASES)
def test_a_syntax_error_names_its_line_shows_a_caret_and_the_likely_fix(
        tmp_path: Path, text: str, line: int, problem: str, fix: str, shown: str | None) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as raised:
        load_exercise(path)
    [found] = raised.value.problems
    message = str(found)
    assert message.startswith(f"{path}:{found.line}:{found.column}: invalid YAML: ")
    assert problem in message and fix in message, message
    if shown is not None:
        assert found.line == line, message
        source, caret = message.splitlines()[1:3]
        assert source == "    " + shown
        assert caret == "    " + " " * (found.column - 1) + "^"
