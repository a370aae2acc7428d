"""`@record`: how the grader declares its data. A dataclass compared and hashed by value, whose fields are
set once, by its __init__, and never again: what `@dataclass(frozen=True)` gives, made for less."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass
from typing import Any, TypeVar, dataclass_transform

Cls = TypeVar("Cls", bound=type)


def _set_once(self: Any, name: str, value: object) -> None:
    if name in self.__dict__ or name not in self.__dataclass_fields__:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _never_delete(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


@dataclass_transform(frozen_default=True)
def record(cls: Cls) -> Cls:
    """Why not `dataclass(frozen=True)`: on Python 3.11 it compiles six methods from source for each class,
    and `grader check` makes a few dozen before its first test. A record compiles four (__init__, __repr__,
    __eq__, __hash__) and shares this module's guard against assignment."""
    made = dataclass(unsafe_hash=True)(cls)
    made.__setattr__ = _set_once  # type: ignore[assignment]
    made.__delattr__ = _never_delete  # type: ignore[assignment]
    return made
