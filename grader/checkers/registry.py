"""The checkers' registry: the name a spec uses -> the function, on the one registry type (grader/registry.py),
packages' checkers found by the `grader.checkers` entry point. Its own module, below every checker module,
so a checker registers itself without importing the package that imports it (no import circle)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from grader.model import CheckResult
from grader.registry import Registry


class Checker(Protocol):
    def __call__(self, expected: object, actual: object, /) -> CheckResult: ...


def _adopt(found: object) -> Callable[..., CheckResult]:
    """A package's checker (what its `grader.checkers` entry point names): a function, as ours are."""
    if not callable(found) or isinstance(found, type):
        raise TypeError(f"{found!r} is not a function (expected, actual, **args) -> CheckResult")
    return found  # type: ignore[no-any-return]


CHECKERS: Registry[Callable[..., CheckResult]] = Registry(what="checker", group="grader.checkers", adopt=_adopt)


def checker(name: str) -> Callable[[Callable[..., CheckResult]], Callable[..., CheckResult]]:
    """Register a checker so exercise specs can name it; a name taken already is refused."""
    return CHECKERS.register(name)


class CheckerError(Exception):
    """A checker failed (raised, or returned something that is no verdict): a grader error naming it."""
