"""YAML 1.1's surprises in a spec: unquoted values that read as something else than they look. `grader
validate` warns of them at their line; the spec may mean them."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from grader.errors import SpecProblem
from grader.spec import LOADER, constructor

_SEXAGESIMAL_OR_SPACED = re.compile(r"[:_]")
_OCTAL = re.compile(r"^[-+]?0[0-7_]+$")
_TEXT_LIKE_A_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+$")  # 1e3: text in YAML 1.1


def surprising_scalars(path: Path) -> list[SpecProblem]:
    """Unquoted values YAML 1.1 reads as something else than they look: 11:01 as 661 (base 60), yes/no/on/off
    as booleans, 010 as 8, 1_000 as 1000, 1e3 as text. Warnings: the spec may mean them."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=LOADER)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []  # load_exercise reports it
    found: list[SpecProblem] = []
    nodes = [root] if root is not None else []
    while nodes:
        node = nodes.pop()
        if isinstance(node, yaml.MappingNode):
            nodes += [value for _, value in node.value]
        elif isinstance(node, yaml.SequenceNode):
            nodes += node.value
        elif isinstance(node, yaml.ScalarNode) and not node.style:  # plain: libyaml says "", PyYAML None
            why = _surprise(node)
            if why:
                advice = "" if node.tag.endswith(":str") else f"; quote it (\"{node.value}\") if you mean the text"
                found.append(SpecProblem(path, node.start_mark.line + 1, node.start_mark.column + 1, why + advice))
    return sorted(found, key=lambda p: (p.line, p.column))


def _surprise(node: yaml.ScalarNode) -> str:
    text, tag = node.value, node.tag.rsplit(":", 1)[-1]
    if tag in ("int", "float") and _SEXAGESIMAL_OR_SPACED.search(text):
        value = constructor.construct_object(node)
        how = "the base-60 number" if ":" in text else "the number"
        return f"YAML 1.1 reads {text} as {how} {value!r}"
    if tag == "int" and _OCTAL.match(text):
        return f"YAML 1.1 reads {text} as the octal number {constructor.construct_object(node)!r}"
    if tag == "bool" and text.lower() not in ("true", "false"):
        return f"YAML 1.1 reads {text} as {constructor.construct_object(node)!r}"
    if tag == "str" and _TEXT_LIKE_A_NUMBER.match(text):
        return f"YAML 1.1 reads {text} as text, not a number (write 1.0e+3 for a number)"
    return ""
