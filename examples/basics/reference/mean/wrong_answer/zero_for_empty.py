"""Returns 0 for an empty list instead of raising ValueError."""


def mean(xs):
    if not xs:
        return 0
    return sum(xs) / len(xs)
