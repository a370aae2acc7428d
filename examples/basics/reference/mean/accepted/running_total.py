"""A loop that keeps a running total and a count."""


def mean(xs):
    total = 0
    count = 0
    for x in xs:
        total += x
        count += 1
    if count == 0:
        raise ValueError("no numbers, no mean")
    return total / count
