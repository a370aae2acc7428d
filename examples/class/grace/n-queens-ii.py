from itertools import product


class Solution:
    def totalNQueens(self, n: int) -> int:
        total = 0
        for cols in product(range(n), repeat=n):
            if len(set(cols)) == n and len({r - c for r, c in enumerate(cols)}) == n \
                    and len({r + c for r, c in enumerate(cols)}) == n:
                total += 1
        return total
