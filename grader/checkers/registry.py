"""The checkers' registry: the name a spec uses -> the function. Its own module, below every checker module,
so a checker registers itself without importing the package that imports it (no import circle)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from grader.model import CheckResult


class Checker(Protocol):
    def __call__(self, expected: object, actual: object, /) -> CheckResult: ...


CHECKERS: dict[str, Callable[..., CheckResult]] = {}


def checker(name: str) -> Callable[[Callable[..., CheckResult]], Callable[..., CheckResult]]:
    """Register a checker so exercise specs can name it."""

    def register(func: Callable[..., CheckResult]) -> Callable[..., CheckResult]:
        CHECKERS[name] = func
        return func

    return register


class CheckerError(Exception):
    """A checker failed (raised, or returned something that is no verdict): a grader error naming it."""
