class Solution:
    def totalNQueens(self, n: int) -> int:
        def go(queens):
            row = len(queens)
            if row == n:
                return 1
            return sum(go(queens + [col]) for col in range(n)
                       if all(c != col and abs(c - col) != row - r for r, c in enumerate(queens)))

        return go([])
