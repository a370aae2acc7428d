"""Forging: shadows abs, isinstance and sorted in its module, and counts its queens with an int that
says it equals anything. len() hands the grader a plain int, and the comparison happens in the grader."""


class Anything(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def abs(x):  # noqa: A001 - on purpose
    return 0


globals()["isinstance"] = lambda obj, cls: True
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
