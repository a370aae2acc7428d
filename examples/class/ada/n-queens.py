class Solution:
    def solveNQueens(self, n: int) -> List[List[str]]:
        result = []
        cols = []
        used, d1, d2 = set(), set(), set()

        def backtrack(row):
            if row == n:
                result.append(["." * c + "Q" + "." * (n - c - 1) for c in cols])
                return
            for col in range(n):
                if col in used or row - col in d1 or row + col in d2:
                    continue
                cols.append(col)
                used.add(col)
                d1.add(row - col)
                d2.add(row + col)
                backtrack(row + 1)
                cols.pop()
                used.remove(col)
                d1.remove(row - col)
                d2.remove(row + col)

        backtrack(0)
        return result
