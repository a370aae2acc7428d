"""A registry of named entries, each an object or the "module:attribute" of one, imported on first use.

Lazy because a `grader check` uses one kind and one or two test forms: importing every kind and form at
start-up was a large part of a check's start (issue 13's budget). A test or a course registers a ready
object the same way, by name."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from importlib import import_module
from typing import Generic, TypeVar

T = TypeVar("T")


def load(where: str) -> object:
    """The attribute named by "module:attribute", its module imported now."""
    module, _, attribute = where.partition(":")
    return getattr(import_module(module), attribute)


class Registry(MutableMapping[str, T], Generic[T]):
    """`entries`: name -> object, or name -> "module:attribute"; with `instantiate`, the attribute is a
    class and the entry is an instance of it."""

    def __init__(self, entries: dict[str, T | str], instantiate: bool = False) -> None:
        self._entries = dict(entries)
        self._instantiate = instantiate

    def __getitem__(self, name: str) -> T:
        entry = self._entries[name]
        if isinstance(entry, str):
            loaded = load(entry)
            entry = self._entries[name] = loaded() if self._instantiate else loaded
        return entry

    def __setitem__(self, name: str, entry: T) -> None:
        self._entries[name] = entry

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
