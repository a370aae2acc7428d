"""`@record`: how the grader declares its data. A dataclass compared and hashed by value, whose fields are
set once, by its __init__, and never again: what `@dataclass(frozen=True)` gives, made for less."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, fields
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from typing import dataclass_transform
else:  # Python 3.10 has no dataclass_transform: it only informs type checkers
    def dataclass_transform(**_: object) -> Any:
        return lambda decorator: decorator

Cls = TypeVar("Cls", bound=type)


@dataclass_transform(frozen_default=True)
def record(cls: Cls) -> Cls:
    """Why not `dataclass(frozen=True)`: on Python 3.11 it compiles six methods from source for each class,
    and `grader check` makes a few dozen before its first test. A record has dataclass compile its __init__
    alone; the other five are this module's, shared by every record and the same as dataclass's in effect."""
    own = dict(cls.__dict__)  # what the class wrote itself is kept, as dataclass keeps it
    if "__hash__" in own and own["__hash__"] is None and "__eq__" in own:
        del own["__hash__"]  # the None Python gives a class that defines __eq__ alone: not written
    made = dataclass(repr=False, eq=False)(cls)
    made.__record_shown__ = tuple(f.name for f in fields(made) if f.repr)  # type: ignore[attr-defined]
    made.__record_compared__ = tuple(f.name for f in fields(made) if f.compare)  # type: ignore[attr-defined]
    shared = {"__repr__": _repr, "__eq__": _eq, "__hash__": _hash, "__setattr__": _set_once,
              "__delattr__": _never_delete}
    for name, method in shared.items():
        if name not in own:
            setattr(made, name, method)
    return made


def _compared(self: Any) -> tuple[object, ...]:
    return tuple([getattr(self, name) for name in self.__record_compared__])


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_shown__)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _compared(self) == _compared(other)


def _hash(self: Any) -> int:
    return hash(_compared(self))


def _set_once(self: Any, name: str, value: object) -> None:
    if name in self.__dict__ or name not in self.__dataclass_fields__:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _never_delete(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")
