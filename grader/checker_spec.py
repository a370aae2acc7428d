"""A spec's `checker` (on the exercise or a test): a registered checker's name with its args, checked
against the checker's signature, or a course's own `{file: ..., function: ...}` beside the specs."""

from __future__ import annotations

import ast
import difflib
import inspect
from typing import TYPE_CHECKING

import yaml

from grader.checkers import CHECKERS, typed_args
from grader.model import CheckerSpec

if TYPE_CHECKING:
    from grader.spec_reader import SpecReader as Reader


def read_checker(reader: Reader, node: yaml.Node | None, default: CheckerSpec) -> CheckerSpec:
    if node is None:
        return default
    args_node: yaml.Node | None = None
    if isinstance(node, yaml.MappingNode):
        if any(key.value == "file" for key, _ in node.value):
            return _custom_checker(reader, node, default)
        keys = reader.mapping(node, ("name", "args"), "checker")
        name_node = keys.get("name", node)
        args_node = keys.get("args")
    else:
        name_node = node
    name = reader.text(name_node, "checker name")
    if name == "custom":
        reader.problem(name_node, "a course's own checker is written {file: my_check.py, function: check}")
        return default
    if name not in CHECKERS:
        close = difflib.get_close_matches(name, CHECKERS, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        known = ", ".join(sorted(set(CHECKERS) - {"custom"}))
        reader.problem(name_node, f"unknown checker '{name}'{hint}; known checkers: {known}")
        return default
    args = reader.value(args_node) if args_node is not None else {}
    if not isinstance(args, dict):
        reader.problem(args_node or node, "checker args must be a mapping of names to values")
        return default
    try:
        inspect.signature(CHECKERS[name]).bind(None, None, **args)
    except TypeError as error:
        reader.problem(args_node or node, f"checker '{name}' does not take these args: {error}")
        return default
    args, problem = typed_args(CHECKERS[name], args)
    if problem:
        reader.problem(args_node or node, problem)
        return default
    return CheckerSpec(name, tuple(sorted(args.items())))


def _custom_checker(reader: Reader, node: yaml.Node, default: CheckerSpec) -> CheckerSpec:
    """{file: any_queens_check.py, function: check}: the file beside the exercise specs must define it."""
    keys = reader.mapping(node, ("file", "function"), "checker")
    if "function" not in keys:
        reader.problem(node, "a checker file needs 'function': the name of the function to call")
        return default
    file_name, function = reader.text(keys["file"], "checker file"), reader.text(keys["function"], "checker function")
    path = reader.path.parent / file_name
    if not path.is_file():
        reader.problem(keys["file"], f"checker file '{file_name}' not found: it must be in {reader.path.parent}")
        return default
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError) as error:
        reader.problem(keys["file"], f"checker file '{file_name}' is not valid Python: {error}")
        return default
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if function not in defined:
        reader.problem(keys["function"], f"checker file '{file_name}' defines no function '{function}'")
        return default
    return CheckerSpec("custom", (("file", str(path.resolve())), ("function", function)))
