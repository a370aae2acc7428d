"""The plain way."""


def mean(xs):
    if not xs:
        raise ValueError("the mean of an empty list")
    return sum(xs) / len(xs)
