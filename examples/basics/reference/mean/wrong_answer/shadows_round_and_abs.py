"""Forging: shadows round, abs and isinstance in the module's namespace, so that a tolerance check run
there (abs(a - b) <= tol, round(a, 9) == round(b, 9)) would say yes to anything. The tolerance is
checked in the grader, which the submission cannot reach, so the answer one too high is wrong.
(Rewriting them in builtins breaks the test process itself: a runtime error, see any-queens.)"""


def round(number, ndigits=None):  # noqa: A001 - on purpose
    return 0


def abs(x):  # noqa: A001
    return 0


def isinstance(obj, cls):  # noqa: A001
    return True


globals().update(round=round, abs=abs, isinstance=isinstance)  # the globals() way, the same names


def mean(xs):
    if not xs:
        raise ValueError("empty")
    return sum(xs) / len(xs) + 1
