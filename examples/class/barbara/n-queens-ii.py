class Solution:
    def totalNQueens(self, n: int) -> int:
        in_col = [False] * n
        in_down = [False] * (2 * n - 1)
        in_up = [False] * (2 * n - 1)

        def place(row):
            if row == n:
                return 1
            total = 0
            for col in range(n):
                down, up = row - col + n - 1, row + col
                if in_col[col] or in_down[down] or in_up[up]:
                    continue
                in_col[col] = in_down[down] = in_up[up] = True
                total += place(row + 1)
                in_col[col] = in_down[down] = in_up[up] = False
            return total

        return place(0)
