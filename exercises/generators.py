"""The course's generators: functions the specs name (a test's `given`, an exercise's `params`)."""

import random


def blocked_square(seed, size=4):
    """blocked-queens' variant: the one square of the board no queen may stand on, in the top-left
    size x size corner, so that it lies on every board the tests use (the smallest is size x size)."""
    draw = random.Random(seed)
    return {"row": draw.randrange(size), "col": draw.randrange(size)}
