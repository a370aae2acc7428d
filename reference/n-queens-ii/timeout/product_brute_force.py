# Brute force over all n**n column tuples: fine to n = 7, minutes at n = 9.
import itertools


class Solution:
    def totalNQueens(self, n: int) -> int:
        total = 0
        for cols in itertools.product(range(n), repeat=n):
            if len(set(cols)) < n:
                continue
            if len({r - c for r, c in enumerate(cols)}) == n and len({r + c for r, c in enumerate(cols)}) == n:
                total += 1
        return total
