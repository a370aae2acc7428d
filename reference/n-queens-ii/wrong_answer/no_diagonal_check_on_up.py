# Checks columns and the row - col diagonals but never row + col: counts boards with clashing queens.
class Solution:
    def totalNQueens(self, n: int) -> int:
        cols, downs = set(), set()

        def count(row):
            if row == n:
                return 1
            total = 0
            for col in range(n):
                if col in cols or row - col in downs:
                    continue
                cols.add(col)
                downs.add(row - col)
                total += count(row + 1)
                cols.remove(col)
                downs.remove(row - col)
            return total

        return count(0)
