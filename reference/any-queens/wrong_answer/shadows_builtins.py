"""Forging: shadows, in its own module, the built-ins a checker run in the submission's namespace would
use (abs for the diagonals, len for the count, isinstance and round). The checker runs in the grader, so
the board below, every queen in column 0, is judged as it is."""


def abs(x):  # noqa: A001 - on purpose
    return -1  # no two queens are ever "on a diagonal"


def isinstance(obj, cls):  # noqa: A001
    return True


def len(obj):  # noqa: A001
    return 0


globals()["round"] = lambda *args: 0


def any_queens(n):
    return [0] * n
