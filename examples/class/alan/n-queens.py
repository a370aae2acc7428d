class Solution:
    def solveNQueens(self, n: int) -> List[List[str]]:
        out = []

        def go(queens):
            row = len(queens)
            if row == n:
                out.append(["." * c + "Q" + "." * (n - c - 1) for c in queens])
                return
            for col in range(n):
                if all(c != col and abs(c - col) != row - r for r, c in enumerate(queens)):
                    go(queens + [col])

        go([])
        return out
