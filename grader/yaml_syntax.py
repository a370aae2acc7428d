"""A YAML syntax error as a newcomer can act on it. Its own module: the spec loader reports these, and the
checks of spec surprises (yaml_surprises.py) stand on the loader, so neither imports the other's reader."""

from __future__ import annotations

from pathlib import Path

import yaml

from grader.errors import SpecProblem

# PyYAML's words for the syntax errors newcomers make most, and what usually fixes each.
_SYNTAX_HINTS = (
    ("mapping values are not allowed", "a value holding ': ' must be quoted (name: \"ratio: 2\"), or the line "
                                       "is indented under a value that is not a mapping: align it with its siblings"),
    ("did not find expected '-' indicator", "in a list, a line is a new item ('- ' at the indent of the "
                                            "items above) or a key of the item, aligned with the first key "
                                            "after its '- ': indent this line to one of them"),
    ("did not find expected key", "the keys of one mapping start at one indent: align this line with the keys "
                                  "above it (in a list item, with the key after its '-')"),
    ("expected <block end>", "this line's indent matches no key above it: align it with its siblings"),
    ("could not find expected ':'", "a key needs ': ' after it (title: Sums), or this line continues the value "
                                    "above: quote that value, or write it as a block (statement: |)"),
    ("cannot start any token", "quote the value (\"...\") or write it as a block (key: | and the text indented "
                               "below): YAML reserves this character at the start of a value; indent with "
                               "spaces, never tabs"),
    ("found unexpected end of stream", "a quote is opened and never closed: close it, or write the text as a "
                                       "block (key: |)"),
    ("expected ',' or '}'", "a {...} mapping on one line: quote values that hold ',' or ':' "
                            "({do: \"f(1, 2)\"})"),
    ("expected ',' or ']'", "a [...] list on one line: quote items that hold ',' or ':'"),
)


def syntax_problem(path: Path, text: str, error: yaml.MarkedYAMLError) -> SpecProblem:
    """A YAML syntax error as a newcomer can act on it: where (file:line:col), the line with a caret under
    the place, and the likely fix."""
    mark = error.problem_mark or error.context_mark
    line, column = (mark.line, mark.column) if mark else (0, 0)
    problem = str(error.problem or error.context or "the text is not YAML")
    hint = next((fix for words, fix in _SYNTAX_HINTS if words in problem), "")
    lines = text.splitlines()
    shown = ""
    if 0 <= line < len(lines):
        source = lines[line].replace("\t", " ")
        shown = f"\n    {source[:160]}\n    {' ' * min(column, 160)}^"
    return SpecProblem(path, line + 1, column + 1,
                       f"invalid YAML: {problem}" + (f"; {hint}" if hint else "") + shown)
