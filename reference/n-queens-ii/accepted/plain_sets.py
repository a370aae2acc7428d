class Solution:
    def totalNQueens(self, n: int) -> int:
        cols, downs, ups = set(), set(), set()

        def count(row: int) -> int:
            if row == n:
                return 1
            total = 0
            for col in range(n):
                if col in cols or row - col in downs or row + col in ups:
                    continue
                cols.add(col)
                downs.add(row - col)
                ups.add(row + col)
                total += count(row + 1)
                cols.remove(col)
                downs.remove(row - col)
                ups.remove(row + col)
            return total

        return count(0)
