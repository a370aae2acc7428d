"""What kinds and test forms may use of the spec loader: reading YAML nodes and reporting problems at their
position. A protocol of its own, below both: the loader (grader/spec.py) implements it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import yaml


class SpecReader(Protocol):
    def problem(self, node: yaml.Node, message: str) -> None: ...

    def text(self, node: yaml.Node | None, where: str, default: str = "") -> str: ...
