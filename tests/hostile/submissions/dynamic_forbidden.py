# Reaches a forbidden name the syntax tree cannot see: built from parts at run time.
import itertools


def count_queens(n):
    orderings = getattr(itertools, "permu" + "tations")
    total = 0
    for cols in orderings(range(n)):
        if len({r - c for r, c in enumerate(cols)}) == n == len({r + c for r, c in enumerate(cols)}):
            total += 1
    return total
