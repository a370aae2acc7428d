# The result variable is set only inside the loop: on a row where every column is attacked,
# `return found` raises UnboundLocalError (from n = 2 on).
class Solution:
    def totalNQueens(self, n: int) -> int:
        cols, downs, ups = set(), set(), set()

        def count(row):
            if row == n:
                return 1
            for col in range(n):
                if col in cols or row - col in downs or row + col in ups:
                    continue
                cols.add(col)
                downs.add(row - col)
                ups.add(row + col)
                found = count(row + 1)
                cols.remove(col)
                downs.remove(row - col)
                ups.remove(row + col)
            return found

        return count(0)
