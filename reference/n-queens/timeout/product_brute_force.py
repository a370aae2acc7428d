# Brute force over all n**n column tuples: fine to n = 7, minutes at n = 9.
import itertools


class Solution:
    def solveNQueens(self, n: int) -> List[List[str]]:
        boards = []
        for cols in itertools.product(range(n), repeat=n):
            if len(set(cols)) < n:
                continue
            if len({r - c for r, c in enumerate(cols)}) < n or len({r + c for r, c in enumerate(cols)}) < n:
                continue
            boards.append(["." * c + "Q" + "." * (n - 1 - c) for c in cols])
        return boards
