"""What kinds and test forms may use of the spec loader: reading YAML nodes and reporting problems at their
position. A protocol of its own, below both: the loader (grader/spec.py) implements it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from pathlib import Path

    import yaml

    from grader.errors import SpecProblem

T = TypeVar("T")


class SpecReader(Protocol):
    path: Path  # the spec's file
    problems: list[SpecProblem]  # every problem found so far, in the order found

    def typed(self, node: yaml.Node | None, kind: type[T], where: str, default: T, check: str = "") -> T: ...

    def text_list(self, node: yaml.Node | None, where: str) -> tuple[str, ...]: ...

    def mapping(self, node: yaml.Node, allowed: tuple[str, ...], where: str) -> dict[str, yaml.Node]: ...

    def value(self, node: yaml.Node) -> object: ...

    def problem(self, node: yaml.Node, message: str) -> None: ...

    def text(self, node: yaml.Node | None, where: str, default: str = "") -> str: ...
