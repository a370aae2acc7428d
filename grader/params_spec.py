"""A spec's `params:` (a variant per student, grader.variants): the function of the course's generators.py
that draws a variant's named values from a seed, and its args, checked when the spec loads (the function
exists, the args are plain data). The values themselves are drawn in the sandbox, per student."""

from __future__ import annotations

import ast
import marshal
from pathlib import Path
from typing import TYPE_CHECKING

from grader.forms.given import GENERATORS
from grader.model import Params

if TYPE_CHECKING:
    import yaml

    from grader.spec_reader import SpecReader as Reader

EXAMPLE = "params: {generator: draw_board, args: {sizes: [5, 6, 7]}}"


def read_params(reader: Reader, node: yaml.Node | None, spec_path: Path) -> Params | None:
    if node is None:
        return None
    import yaml

    if not isinstance(node, yaml.MappingNode):
        reader.problem(node, f"params must be a mapping naming a function of {GENERATORS}, e.g. {EXAMPLE}")
        return None
    keys = reader.mapping(node, ("generator", "args"), "params")
    if "generator" not in keys:
        reader.problem(node, f"params needs 'generator': a function of {GENERATORS} beside the spec, "
                             f"called with seed=... and the args; e.g. {EXAMPLE}")
        return None
    function = reader.text(keys["generator"], "params: generator")
    args = reader.value(keys["args"]) if "args" in keys else {}
    if not isinstance(args, dict) or not all(isinstance(k, str) and k.isidentifier() and k != "seed" for k in args):
        reader.problem(keys.get("args", node), "params: args must be a mapping of Python names (not 'seed', "
                                               "which the grader passes) to values")
        return None
    try:
        marshal.dumps(args)  # the sandbox gets them
    except ValueError:
        reader.problem(keys["args"], "params: args must be plain data (lists, mappings, text, numbers)")
        return None
    source = spec_path.parent / GENERATORS
    if not _defines(reader, keys["generator"], source, function):
        return None
    mark = node.start_mark
    return Params(source, function, tuple(sorted(args.items())), mark.line + 1, mark.column + 1)


def _defines(reader: Reader, node: yaml.Node, source: Path, function: str) -> bool:
    if not source.is_file():
        reader.problem(node, f"params: generator '{function}' needs {source}, which does not exist")
        return False
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
    except (SyntaxError, UnicodeDecodeError) as error:
        reader.problem(node, f"params: {source.name} is not valid Python ({error})")
        return False
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    if function not in defined:
        known = f"; it defines {', '.join(sorted(defined))}" if defined else ""
        reader.problem(node, f"params: {source.name} defines no function '{function}'{known}")
        return False
    return True
