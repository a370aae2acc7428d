"""Never checks for the empty list: ZeroDivisionError, which is not a ValueError."""


def mean(xs):
    return sum(xs) / len(xs)
