"""Forging: shadows the built-ins a checker written in the submission's process would use (abs for the
diagonals, len and set for the counts, isinstance for the type), here and in builtins itself."""

import builtins


def abs(x):  # noqa: A001 - on purpose
    return -1  # no two queens are ever "on a diagonal"


def isinstance(obj, cls):  # noqa: A001
    return True


def len(obj):  # noqa: A001
    return 0


builtins.abs = abs
builtins.isinstance = isinstance
vars(builtins)["round"] = lambda *args: 0  # the same, through the namespace


def any_queens(n):
    return [0] * n  # every queen in column 0
