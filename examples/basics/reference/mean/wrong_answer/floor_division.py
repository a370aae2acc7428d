"""// instead of /: the mean rounded down to a whole number."""


def mean(xs):
    if not xs:
        raise ValueError("empty")
    return sum(xs) // len(xs)
