from itertools import permutations


def count_queens(n):
    total = 0
    for cols in permutations(range(n)):
        if len({r - c for r, c in enumerate(cols)}) == n and len({r + c for r, c in enumerate(cols)}) == n:
            total += 1
    return total
