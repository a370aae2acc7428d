"""What kinds and test forms may use of the spec loader: reading YAML nodes and reporting problems at their
position. A protocol of its own, below both: the loader (grader/spec.py) implements it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    import yaml


class SpecReader(Protocol):
    path: Path  # the spec's file

    def mapping(self, node: yaml.Node, allowed: tuple[str, ...], where: str) -> dict[str, yaml.Node]: ...

    def value(self, node: yaml.Node) -> object: ...

    def problem(self, node: yaml.Node, message: str) -> None: ...

    def text(self, node: yaml.Node | None, where: str, default: str = "") -> str: ...
