"""Brute force: every ordering of the columns, then a check of both diagonals.

It builds the orderings itself rather than importing itertools.permutations (which the
exercise forbids), so it is judged on time: about 2 s at n = 9, 20 s at n = 10, minutes at n = 11.
"""


def orderings(items):
    if not items:
        yield []
        return
    for i, first in enumerate(items):
        for rest in orderings(items[:i] + items[i + 1:]):
            yield [first] + rest


def count_queens(n):
    ways = 0
    for cols in orderings(list(range(n))):
        if len({r - c for r, c in enumerate(cols)}) == n and len({r + c for r, c in enumerate(cols)}) == n:
            ways += 1
    return ways
