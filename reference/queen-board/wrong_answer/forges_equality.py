"""Forging: shadows abs, isinstance and sorted, and answers with values that say they equal anything.
Only exact built-in values cross the sandbox, and the comparison happens in the grader."""

import builtins


class Anything(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def abs(x):  # noqa: A001 - on purpose
    return 0


builtins.isinstance = lambda obj, cls: True
globals()["sorted"] = lambda items, **kwargs: []


class Board:
    def __init__(self, n):
        self.n = n

    def is_free(self, row, col):
        return True  # every square "free", even attacked ones

    def place(self, row, col):
        return None  # never refuses

    def remove(self, row, col):
        return None

    def queens(self):
        return sorted([])

    def __len__(self):
        return Anything(0)
