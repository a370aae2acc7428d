"""Forging: a float subclass whose __eq__ says yes to anything (and whose difference is always 0). Only
exact built-in values leave the sandbox, so it is refused, never compared."""


class Anything(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __sub__(self, other):
        return 0.0

    __rsub__ = __sub__
    __hash__ = float.__hash__


def mean(xs):
    if not xs:
        raise ValueError("empty")
    return Anything(0)
