"""Rounds the mean to two decimals: far outside the tolerance for most lists."""


def mean(xs):
    if not xs:
        raise ValueError("empty")
    return round(sum(xs) / len(xs), 2)
