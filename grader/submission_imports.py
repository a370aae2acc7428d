"""A test file's `from grains import square`: the spec's `test_setup` may import the submission by its module
name (the exercise's id, '-' read as '_'), as a unittest file does. test_setup runs before the submission
loads (so nothing the submission does can change the tests' own modules), so these imports are taken out of
it here and bound by the sandbox right after the submission has loaded."""

from __future__ import annotations

import ast
import sys

Binding = tuple[str, str]  # (the name test_setup binds, the submission's name: "" the module, "*" all)


def module_name(exercise_id: str) -> str:
    """The name a test file imports the submission by: the exercise's id as a module name."""
    return exercise_id.replace("-", "_")


def split_imports(test_setup: str, module: str) -> tuple[str, tuple[Binding, ...]]:
    """test_setup without its top-level imports of `module`, and what they bind. Line numbers are kept (an
    import becomes `pass`), so a traceback's line in <test_setup> is the spec's."""
    if module not in test_setup or module in sys.stdlib_module_names:
        return test_setup, ()  # an exercise named `math` still imports the standard library's math
    try:
        tree = ast.parse(test_setup)
    except SyntaxError:
        return test_setup, ()  # the spec's loader reports it
    lines = test_setup.splitlines(keepends=True)
    bindings: list[Binding] = []
    shared = {line for a, b in zip(tree.body, tree.body[1:]) if a.end_lineno == b.lineno for line in (a.lineno, b.lineno)}
    for node in tree.body:
        kept = ""
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == module:
            bindings += [("*", "*") if alias.name == "*" else (alias.asname or alias.name, alias.name)
                         for alias in node.names]
        elif isinstance(node, ast.Import) and any(alias.name == module for alias in node.names):
            bindings += [(alias.asname or alias.name, "") for alias in node.names if alias.name == module]
            others = [alias for alias in node.names if alias.name != module]
            kept = "; import " + ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in others) \
                if others else ""
        else:
            continue
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        if node.lineno in shared:
            return test_setup, ()  # shares its line with other code: left as is (it fails as a missing module)
        lines[first] = "pass" + kept + "\n"
        for index in range(first + 1, last + 1):
            lines[index] = "\n"
    return "".join(lines), tuple(bindings)
