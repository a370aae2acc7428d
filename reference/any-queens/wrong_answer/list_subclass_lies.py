"""Forging: a list that says it equals anything and has whatever length is asked; exact built-in types
only cross the sandbox, so it is refused, never compared."""


class Agreeable(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


def any_queens(n):
    if n in (2, 3):
        return None
    return Agreeable([0] * n)
