"""A spec's `limits:` mapping (the exercise's, a test's, a search's), read through the loader's protocol and
each value checked by limits.py, the one rule for limits from anywhere."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import TYPE_CHECKING

from grader.limits import LimitError, checked, what
from grader.model import Limits

if TYPE_CHECKING:
    import yaml

    from grader.spec_reader import SpecReader as Reader

LIMIT_KEYS = tuple(f.name for f in fields(Limits) if f.name != "cpu_written")


def read_limits(reader: Reader, node: yaml.Node | None, base: Limits, where: str) -> Limits:
    if node is None:
        return base
    changes: dict[str, object] = {}
    for key, value_node in reader.mapping(node, LIMIT_KEYS, where).items():
        kind: type = float if key in ("cpu", "wall") else int
        value = reader.typed(value_node, kind, f"{where}: {key}", None, what(key))
        if value is None:
            continue
        try:
            changes[key] = kind(checked(key, value))
        except LimitError as error:
            reader.problem(value_node, f"{where}: {key} {error}")
    if "cpu" in changes:
        changes["cpu_written"] = True
    return replace(base, **changes)  # type: ignore[arg-type]
