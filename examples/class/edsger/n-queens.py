class Solution:
    def solveNQueens(self, n: int) -> List[List[str]]:
        boards = []
        col_used = [False] * n
        d1 = [False] * n  # one flag per diagonal
        d2 = [False] * n
        queens = []

        def go(row):
            if row == n:
                boards.append(["." * c + "Q" + "." * (n - c - 1) for c in queens])
                return
            for col in range(n):
                if col_used[col] or d1[row - col + n - 1] or d2[row + col]:
                    continue
                col_used[col] = d1[row - col + n - 1] = d2[row + col] = True
                queens.append(col)
                go(row + 1)
                queens.pop()
                col_used[col] = d1[row - col + n - 1] = d2[row + col] = False

        go(0)
        return boards
