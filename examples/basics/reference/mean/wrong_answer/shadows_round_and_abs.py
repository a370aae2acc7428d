"""Forging: shadows round, abs and isinstance here and in builtins, so that a tolerance check written
with them (abs(a - b) <= tol, round(a, 9) == round(b, 9)) would say yes to anything. The tolerance is
checked in the grader, which the submission cannot reach, so the answer one too high is wrong."""

import builtins


def round(number, ndigits=None):  # noqa: A001 - on purpose
    return 0


def abs(x):  # noqa: A001
    return 0


def isinstance(obj, cls):  # noqa: A001
    return True


builtins.round, builtins.abs, builtins.isinstance = round, abs, isinstance


def mean(xs):
    if not xs:
        raise ValueError("empty")
    return sum(xs) / len(xs) + 1
