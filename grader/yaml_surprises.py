"""YAML 1.1's surprises in a spec: unquoted values that read as something else than they look. `grader
validate` notes them at their line, saying what YAML reads and what the grader then does with it; the
spec may mean them."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from grader.errors import SpecProblem
from grader.spec import LOADER, constructor

_SEXAGESIMAL_OR_SPACED = re.compile(r"[:_]")
_OCTAL = re.compile(r"^[-+]?0[0-7_]+$")
_TEXT_LIKE_A_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+$")  # 1e3: text in YAML 1.1
_TIME = re.compile(r"^\d{1,2}:\d\d(:\d\d)?$")  # 08:00 is text, 10:00 the base-60 number 600
# Where the grader turns a number's text into the number: a checker's args (checkers.typed_args).
_NUMBERS_READ_AS_NUMBERS = ("args",)


def surprising_scalars(path: Path) -> list[SpecProblem]:
    """Unquoted values YAML 1.1 reads as something else than they look: 11:01 as 661 (base 60), yes/no/on/off
    as booleans, 010 as 8, 1_000 as 1000, 1e3 as text, and a time such as 08:00 (text) whose neighbours
    are numbers (10:00 is 600). Notes: the spec may mean them."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=LOADER)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []  # load_exercise reports it
    found: list[SpecProblem] = []
    nodes: list[tuple[yaml.Node, tuple[str, ...]]] = [(root, ())] if root is not None else []
    while nodes:
        node, keys = nodes.pop()
        if isinstance(node, yaml.MappingNode):
            nodes += [(value, (*keys, str(key.value))) for key, value in node.value]
        elif isinstance(node, yaml.SequenceNode):
            nodes += [(item, keys) for item in node.value]
        elif isinstance(node, yaml.ScalarNode) and not node.style:  # plain: libyaml says "", PyYAML None
            why = _surprise(node, keys)
            if why:
                found.append(SpecProblem(path, node.start_mark.line + 1, node.start_mark.column + 1, why))
    return sorted(found, key=lambda p: (p.line, p.column))


def _surprise(node: yaml.ScalarNode, keys: tuple[str, ...]) -> str:
    text, tag = node.value, node.tag.rsplit(":", 1)[-1]
    quote = f"; quote it (\"{text}\") if you mean the text"
    if tag in ("int", "float") and _SEXAGESIMAL_OR_SPACED.search(text):
        value = constructor.construct_object(node)
        how = "the base-60 number" if ":" in text else "the number"
        return f"YAML 1.1 reads {text} as {how} {value!r}, and the grader uses that number{quote}"
    if tag == "int" and _OCTAL.match(text):
        return (f"YAML 1.1 reads {text} as the octal number {constructor.construct_object(node)!r}, and the "
                f"grader uses that number{quote}")
    if tag == "bool" and text.lower() not in ("true", "false"):
        return (f"YAML 1.1 reads {text} as {constructor.construct_object(node)!r}, and the grader uses that "
                f"boolean{quote}")
    if tag == "str" and _TEXT_LIKE_A_NUMBER.match(text):
        number = float(text)
        if any(key in _NUMBERS_READ_AS_NUMBERS for key in keys[-2:-1]):
            return (f"YAML 1.1 reads {text} as the text '{text}'; as the checker arg '{keys[-1]}' the grader "
                    f"applies it as the number {number!r} (write {_float_text(number)} to make it a number in "
                    f"YAML too)")
        return (f"YAML 1.1 reads {text} as the text '{text}', and the grader uses that text, not the number "
                f"{number!r} (write {_float_text(number)} for the number)")
    if tag == "str" and _TIME.match(text):
        neighbour = f"1{text[1:]}" if len(text.split(":")[0]) == 2 else f"1{text}"
        return (f"YAML 1.1 reads {text} as the text '{text}', but {neighbour} unquoted is the base-60 number "
                f"{_base60(neighbour)}: quote times (\"{text}\") so that every one reads as text")
    return ""


def _float_text(number: float) -> str:
    """How YAML 1.1 reads a number in exponent form: a dot and a signed exponent (1.0e-6)."""
    mantissa, exponent = f"{number:e}".split("e")
    mantissa = mantissa.rstrip("0")
    mantissa = mantissa + "0" if mantissa.endswith(".") else mantissa
    return f"{mantissa}e{'-' if exponent.startswith('-') else '+'}{int(exponent[1:])}"


def _base60(text: str) -> int:
    value = 0
    for part in text.split(":"):
        value = value * 60 + int(part)
    return value
