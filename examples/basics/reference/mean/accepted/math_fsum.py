"""math.fsum adds without losing digits; the raise comes first."""

import math


def mean(xs):
    if len(xs) == 0:
        raise ValueError("mean() of an empty list")
    return math.fsum(xs) / len(xs)
