# Lists of flags instead of sets: 2n - 1 diagonals of each kind, row - col shifted by n - 1.
class Solution:
    def totalNQueens(self, n: int) -> int:
        col_used = [False] * n
        down_used = [False] * (2 * n - 1)
        up_used = [False] * (2 * n - 1)
        self.total = 0

        def go(row: int) -> None:
            if row == n:
                self.total += 1
                return
            for col in range(n):
                d, u = row - col + n - 1, row + col
                if col_used[col] or down_used[d] or up_used[u]:
                    continue
                col_used[col] = down_used[d] = up_used[u] = True
                go(row + 1)
                col_used[col] = down_used[d] = up_used[u] = False

        go(0)
        return self.total
