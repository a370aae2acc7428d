class Solution:
    def totalNQueens(self, n: int) -> int:
        used, d1, d2 = set(), set(), set()

        def backtrack(row):
            if row == n:
                return 1
            total = 0
            for col in range(n):
                if col in used or row - col in d1 or row + col in d2:
                    continue
                used.add(col)
                d1.add(row - col)
                d2.add(row + col)
                total += backtrack(row + 1)
                used.remove(col)
                d1.remove(row - col)
                d2.remove(row + col)
            return total

        return backtrack(0)
