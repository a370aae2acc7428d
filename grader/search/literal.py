"""A generated value as Python source that makes it again: what a student reads and pastes, the same text in
every process (a set's items sorted: its order changes with the hash seed)."""

from __future__ import annotations

import math


def literal(value: object) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "-float('inf')"
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(literal(item) for item in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (set, frozenset)):
        items = sorted(literal(item) for item in value)
        if not items:
            return f"{type(value).__name__}()"
        return "{" + ", ".join(items) + "}" if isinstance(value, set) else f"frozenset({{{', '.join(items)}}})"
    return repr(value)


def call_text(entry: str, values: tuple[object, ...]) -> str:
    """`max_subarray([-1])`: the call as a student may run it again."""
    return f"{entry}({', '.join(literal(value) for value in values)})"
