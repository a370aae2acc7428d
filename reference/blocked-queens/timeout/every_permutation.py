# Right, but it checks every ordering of the columns: 10! = 3,628,800 boards at n = 10.
from itertools import permutations

BLOCKED = ({{ row }}, {{ col }})


def count_queens(n):
    ways = 0
    for columns in permutations(range(n)):
        if columns[BLOCKED[0]] == BLOCKED[1]:
            continue
        if len({r - c for r, c in enumerate(columns)}) == n and len({r + c for r, c in enumerate(columns)}) == n:
            ways += 1
    return ways
